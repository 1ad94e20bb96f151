"""The bulk import path: :meth:`GrowingIndex.extend_rows` and :meth:`SupportState.plan_import`
give what the item-by-item path gives (the same index; the least fixpoint, with sound,
well-founded pointers whose ranks are one above their antecedents')."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from jtms.engine.incremental import GraphRows, GrowingIndex, SupportState, justification_rows
from jtms.memory.memory import Memory
from theory.model.ids import id_problem
from theory.model.structure import SupportStructure
from theory.testing import strategies as jst


def _renamed(structure: SupportStructure, prefix: str) -> SupportStructure:
    return SupportStructure.build(
        [prefix + e for e in structure.evidence],
        [prefix + c for c in structure.claims],
        [(prefix + j.claim, [prefix + a for a in j.antecedents]) for j in structure.justifications],
    )


def _adjacency(index: GrowingIndex) -> list:
    size = index.size
    return [
        [list(index.justs_of[n]) for n in range(size)],
        [list(index.watchers[n]) for n in range(size)],
        [list(index.consumers[n]) for n in range(size)],
        list(index.just_claim),
        list(index.just_antecedents),
        list(index.ids),
        bytes(index.is_evidence),
    ]


def _ranks_are_derivations(state: SupportState) -> None:
    index = state.index
    for n in range(index.size):
        if state.active[n] and not index.is_evidence[n]:
            below = [state.rank[a] for a in index.just_antecedents[state.support[n]]]
            assert state.rank[n] == 1 + max(below, default=0)


def _assigned_ranks_are_derivations(state: SupportState, plan) -> None:
    """The ranks contract of docs/memory.md after applying ``plan``: every rank it assigned
    is 1 + the largest of its pointer's antecedents' (evidence 0), and no active node has a
    rank derived from "no rank" (2^62)."""
    from jtms.engine.incremental import NO_RANK

    index = state.index
    for c in plan.supports:
        below = [state.rank[a] for a in index.just_antecedents[state.support[c]]]
        assert state.rank[c] == 1 + max(below, default=0), index.ids[c]
    for n in range(index.size):
        if state.active[n]:
            assert state.rank[n] < NO_RANK and (state.rank[n] == 0) == bool(index.is_evidence[n])


@pytest.mark.slow
@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(
    jst.support_structures(cycles=True, max_evidence=5, max_claims=8),
    jst.support_structures(cycles=True, max_evidence=5, max_claims=8),
    st.booleans(),
    st.data(),
)
def test_a_bulk_extension_is_the_item_by_item_one(before, graph, one_by_one, data):
    """After an existing graph (its last node added one by one, or not), extend_rows gives
    the adjacency extend gives (justifications in any order: consumers keep their order of
    first use), and plan_import the fixpoint plan_extend gives."""
    graph = _renamed(graph, "new_")
    order = data.draw(st.permutations(range(len(graph.justifications))), label="order")
    built = []
    for bulk in (False, True):
        index = GrowingIndex.of(before)
        if one_by_one:
            index.add_node("late", True)  # a node in the appended lists, not the base
        state = SupportState(index)
        first, first_just = index.size, len(index.just_claim)
        ordered = sorted(graph.evidence) + sorted(graph.claims)
        number = {n: first + k for k, n in enumerate(ordered)}
        nodes = [(n, k < len(graph.evidence)) for k, n in enumerate(ordered)]
        claims, offsets, flat = justification_rows(graph, number)
        rows = [(claims[k], flat[offsets[k] : offsets[k + 1]]) for k in order]
        claims, offsets, flat = [c for c, _ in rows], [0], []
        for _, antecedents in rows:
            flat.extend(antecedents)
            offsets.append(len(flat))
        if bulk:
            index.extend_rows(nodes, claims, offsets, flat)
            plan = state.plan_import(first, first_just)
        else:
            index.extend(
                nodes,
                [(c, tuple(flat[a:b])) for c, a, b in zip(claims, offsets, offsets[1:])],
                canonical=True,
            )
            plan = state.plan_extend(seeds=range(first, index.size))
        state.apply(plan)
        assert state.verify() == []
        _ranks_are_derivations(state)
        built.append((_adjacency(index), bytes(state.active)))
    assert built[0] == built[1]


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    jst.support_structures(cycles=True, max_evidence=4, max_claims=6),
    jst.support_structures(cycles=True, max_evidence=4, max_claims=6),
)
def test_two_imports_and_an_audit_leave_a_sound_memory(tmp_path_factory, first, second):
    """Two imports into one memory (the second appended after the first's compressed
    rows), then an audit: the store's integrity checks (status = fixpoint, pointers sound,
    checkpoint = replay) pass, and a reopened memory agrees."""
    path = tmp_path_factory.mktemp("bulk") / "m.db"
    with Memory.create(path) as memory:
        memory.import_graph(_renamed(first, "a_"), source="one")
        memory.add_evidence("loose")
        memory.import_graph(_renamed(second, "b_"), source="two")
        evidence = sorted(_renamed(second, "b_").evidence)
        if evidence:
            memory.audit(evidence[:1], reason="check")
        assert memory.integrity_problems() == []
        active = memory.active_ids()
    with Memory.open(path) as memory:
        assert memory.active_ids() == active


@pytest.mark.slow
@settings(max_examples=150)
@given(jst.support_structures(cycles=True, max_evidence=5, max_claims=8), st.data())
def test_ranks_stay_derivation_depths_after_an_audit_and_its_reinstatement(structure, data):
    """Evidence re-activated by a reinstatement has rank 0 within the plan that re-activates
    it, so the claims re-derived on it get ranks one above their pointer's antecedents (they
    got 2^62 + 1: retraction orders its work by rank)."""
    state = SupportState(GrowingIndex.of(structure))
    index = state.index
    roots = sorted(index.numbers(data.draw(jst.audits(structure, min_size=1))))
    for plan in (state.plan_retract(roots), None):
        plan = plan or state.plan_extend(unblock=roots)
        state.apply(plan)
        assert state.verify() == []
        _assigned_ranks_are_derivations(state, plan)


@pytest.mark.slow
@settings(max_examples=150)
@given(jst.support_structures(cycles=True, max_evidence=5, max_claims=8), st.data())
def test_downstream_of_an_opened_memorys_arrays_is_the_walk(structure, data):
    """downstream_numbers on compressed rows held in arrays (a memory opened from its
    checkpoint: the numpy levels) equals the plain walk over the same index."""
    from array import array

    from theory.semantics.revision import downstream_numbers

    index = GrowingIndex.of(structure)
    offsets, flat = index.consumers.compressed()
    as_arrays = GrowingIndex.of(structure)
    as_arrays.consumers = type(index.consumers)(array("q", offsets), array("i", flat))
    roots = set(data.draw(st.sets(st.sampled_from(range(index.size)), min_size=1)))
    expected, seen, frontier = set(roots), set(roots), list(roots)
    while frontier:
        n = frontier.pop()
        for c in index.consumers[n]:
            if c not in seen:
                seen.add(c)
                frontier.append(c)
    assert downstream_numbers(as_arrays, roots) == seen == downstream_numbers(index, roots)
    assert expected <= seen


# --- a graph document straight into rows (theory.io.graphfile.graph_rows) ------------------------


def _document(data: st.DataObject, structure: SupportStructure) -> dict:
    """A document of ``structure`` in a drawn order, with texts, repeated justifications and
    repeated antecedents (all of which the readers must normalise alike)."""
    nodes = [
        {"id": n.id, "kind": n.kind.value}
        | (
            {"text": data.draw(st.text(max_size=3), label="text")}
            if data.draw(st.booleans())
            else {}
        )
        for n in structure.nodes.values()
    ]
    justifications = [
        {"claim": j.claim, "antecedents": sorted(j.antecedents) * data.draw(st.integers(1, 2))}
        for j in structure.justifications
    ]
    justifications += (
        data.draw(st.lists(st.sampled_from(justifications), max_size=2)) if (justifications) else []
    )
    return {
        "nodes": data.draw(st.permutations(nodes), label="node order"),
        "justifications": data.draw(st.permutations(justifications), label="order"),
    }


def _broken(data: st.DataObject, document: dict) -> dict:
    """``document`` with one drawn change, most of which make it invalid."""
    import copy

    broken = copy.deepcopy(document)
    nodes, justifications = broken["nodes"], broken["justifications"]
    change = data.draw(
        st.sampled_from(
            [
                "unknown antecedent",
                "duplicate id",
                "evidence justified",
                "kind",
                "id type",
                "node key",
                "justification key",
                "antecedents type",
                "unknown claim",
                "comma id",
                "nogood",
                "empty nogoods",
                "text type",
                "claim type",
                "top key",
                "nodes type",
                "antecedent type",
                "spaced id",
            ]
        ),
        label="change",
    )
    node = data.draw(st.sampled_from(nodes), label="node") if nodes else None
    justification = (
        data.draw(st.sampled_from(justifications), label="justification")
        if justifications
        else None
    )
    evidence = [n["id"] for n in nodes if n["kind"] == "evidence"]
    if change == "unknown antecedent" and justification:
        justification["antecedents"].append("nowhere")
    elif change == "duplicate id" and node:
        nodes.append(dict(node))
    elif change == "evidence justified" and evidence:
        justifications.append({"claim": evidence[0], "antecedents": []})
    elif change == "kind" and node:
        node["kind"] = "axiom"
    elif change == "id type" and node:
        node["id"] = 7
    elif change == "node key" and node:
        node["txt"] = "x"
    elif change == "justification key" and justification:
        justification["because"] = []
    elif change == "antecedents type" and justification:
        justification["antecedents"] = "e0"
    elif change == "unknown claim":
        justifications.append({"claim": "nowhere", "antecedents": []})
    elif change == "comma id" and node:
        node["id"] = node["id"] + ",x"
    elif change == "nogood" and node:
        broken["nogoods"] = [{"id": "n!", "nodes": [node["id"]]}]
    elif change == "empty nogoods":
        broken["nogoods"] = []
    elif change == "text type" and node:
        node["text"] = 3
    elif change == "claim type" and justification:
        justification["claim"] = ["c"]
    elif change == "top key":
        broken["graph"] = {}
    elif change == "nodes type":
        broken["nodes"] = {}
    elif change == "antecedent type" and justification:
        justification["antecedents"].append(None)
    elif change == "spaced id" and node:
        node["id"] = " " + node["id"]
    return broken


@pytest.mark.slow
@settings(max_examples=300)
@given(data=st.data(), cycles=st.booleans())
def test_graph_rows_read_a_document_as_the_parser_does(data, cycles):
    """graph_rows gives the rows of the parsed structure on a valid document, and None on any
    document the parser refuses (or with nogoods: those take the parser's path)."""
    from unittest import mock

    from theory.io.graphfile import graph_rows, parse_graph
    from theory.model.errors import InputError

    structure = data.draw(jst.support_structures(cycles=cycles, max_evidence=4, max_claims=6))
    document = _document(data, structure)
    if data.draw(st.booleans(), label="break it"):
        document = _broken(data, document)
    try:
        parsed = parse_graph(document)
    except InputError:
        assert graph_rows(document) is None
        return
    rows = graph_rows(document)
    if parsed.nogoods:
        assert rows is None
        return
    assert rows == GraphRows.of(parsed)
    # every fingerprint equal (a collision on every row): the exact comparison alone decides
    with mock.patch("theory.io.graphfile._mix", lambda x: x * 0):
        assert graph_rows(document) == rows


def test_an_import_through_rows_equals_one_through_the_structure(tmp_path):
    """The same document imported as a document (rows) and as a parsed structure: the same
    stored memory, before and after an audit."""
    from jtms.memory.jsonl import export_lines
    from theory.io.graphfile import parse_graph

    document = {
        "nodes": [{"id": f"e{k}", "kind": "evidence", "text": f"obs {k}"} for k in range(5)]
        + [{"id": f"c{k}", "kind": "claim"} for k in range(8)],
        "justifications": [
            {"claim": f"c{k}", "antecedents": [f"e{k % 5}", f"c{(k + 3) % 8}"]} for k in range(8)
        ]
        + [{"claim": f"c{k}", "antecedents": [f"e{(k + 1) % 5}"]} for k in range(0, 8, 2)]
        + [{"claim": "c1", "antecedents": ["e1", "c4", "e1"]}],
    }
    dumps = []
    for name, graph in (("doc", document), ("structure", parse_graph(document))):
        with Memory.create(tmp_path / f"{name}.db") as memory:
            memory.add_evidence("x0")  # numbers of the import start after the memory's
            memory.import_graph(graph, source="g")
            memory.audit(["e1"], reason="r")
            dumps.append(
                [line.split('"time"')[0] for line in export_lines(memory) if '"time"' in line]
                + [line for line in export_lines(memory) if '"time"' not in line]
            )
    assert dumps[0] == dumps[1]


@pytest.mark.slow
@settings(max_examples=300)
@given(jst.support_structures(cycles=True, max_evidence=5, max_claims=10), st.data())
def test_assigned_ranks_are_derivation_depths_through_audits_and_reinstatements(structure, data):
    """Through any sequence of audits and reinstatements, every rank a plan assigns is one
    above its pointer's antecedents' after the plan (docs/memory.md: ranks order work)."""
    state = SupportState(GrowingIndex.of(structure))
    for plan in _random_plans(state, structure, data, 4):
        state.apply(plan)
        assert state.verify() == []
        _assigned_ranks_are_derivations(state, plan)


def _random_plans(state: SupportState, structure, data, most: int):
    """Plans of ``state`` for 1 to ``most`` random steps, each an audit of random nodes or the
    reinstatement of an open one (the caller applies each plan before the next is drawn)."""
    index = state.index
    open_audits: list[list[int]] = []
    for _ in range(data.draw(st.integers(1, most), label="steps")):
        if open_audits and data.draw(st.booleans(), label="reinstate"):
            yield state.plan_extend(unblock=open_audits.pop())
        else:
            roots = sorted(index.numbers(data.draw(jst.audits(structure, min_size=1))))
            open_audits.append(roots)
            yield state.plan_retract(roots)


def test_a_claim_rederived_on_a_switched_claim_ranks_above_its_new_rank():
    """b8 <- e0 | c5 and c5 <- e0 | c6, e1: auditing e0, b8 is visited first (same rank,
    lower number) and goes out while c5 is still in the region; c5 then switches to (c6, e1),
    one level up, and b8 is re-derived on c5: its rank must be above c5's new rank (it took
    c5's old one before)."""
    structure = SupportStructure.build(
        ["e0", "e1"],
        ["b8", "c5", "c6"],
        [("b8", ["e0"]), ("b8", ["c5"]), ("c5", ["e0"]), ("c5", ["c6", "e1"]), ("c6", [])],
    )
    state = SupportState(GrowingIndex.of(structure))
    index = state.index
    b8, c5 = index.numbers(["b8", "c5"])
    plan = state.plan_retract(index.numbers(["e0"]))
    assert plan.deactivated == (index.number["e0"],)
    assert plan.ranks[c5] == 2 and plan.ranks[b8] == 3
    state.apply(plan)
    _assigned_ranks_are_derivations(state, plan)


@pytest.mark.slow
@settings(max_examples=300)
@given(jst.support_structures(cycles=True, max_evidence=5, max_claims=10), st.data())
def test_rederive_counts_alike_in_flat_lists_and_in_a_dict(structure, data):
    """The counting paths of theory.semantics.fixpoint.rederive (for a large region: in numpy over flat
    arrays, or in a flat list over slices; a dict for a small one, counted over slices or,
    from ARRAY_COUNTS_FROM region claims, in numpy) derive the same claims in the same
    order."""
    from unittest import mock

    from theory.semantics.fixpoint import _rederive

    state = SupportState(GrowingIndex.of(structure))
    index = state.index
    roots = sorted(index.numbers(data.draw(jst.audits(structure, min_size=1))))
    plan = state.plan_retract(roots)
    after = bytearray(state.active)
    for n in plan.deactivated:
        after[n] = 0
    candidates = [n for n in plan.deactivated if n not in roots] + list(plan.supports)
    for n in candidates:  # inactive; the region is some of them (the rest stay out)
        after[n] = 0
    region = (
        data.draw(st.lists(st.sampled_from(candidates), unique=True), label="region")
        if (candidates)
        else []
    )
    small, large, sliced, keyed = (bytearray(after) for _ in range(4))
    with mock.patch("theory.semantics.fixpoint.ARRAY_COUNTS_FROM", 1 << 30):  # a dict, slices
        derived = _rederive(index, small, list(region), flat_counts=False)
    assert _rederive(index, large, list(region), flat_counts=True) == derived
    with mock.patch(
        "theory.semantics.fixpoint.flat_justification_rows", return_value=None
    ):  # no arrays: slices
        assert _rederive(index, sliced, list(region), flat_counts=True) == derived
    with mock.patch("theory.semantics.fixpoint.ARRAY_COUNTS_FROM", 0):  # in arrays, into a dict
        assert _rederive(index, keyed, list(region), flat_counts=False) == derived
    assert small == large == sliced == keyed


def test_an_import_stores_every_column_of_plain_and_annotated_nodes(memory_location):
    """Plain nodes (no text, author or calculation) and annotated ones are written by two
    statements, and a plain document's nodes as columns: each stored row has the columns the
    document gave, in its number's place (ids with COPY's escape characters too)."""
    document = {
        "nodes": [
            {"id": "e0", "kind": "evidence"},
            {"id": "e1", "kind": "evidence", "text": "seen"},
            {"id": "e2", "kind": "evidence", "expression": "2*3", "value": "6"},
            {"id": "e3", "kind": "evidence", "author": "bo"},
            {"id": "c0", "kind": "claim"},
            {"id": "c1", "kind": "claim", "text": "so"},
            {"id": "c2", "kind": "claim", "author": "cy"},
            {"id": "c3", "kind": "claim"},
            {"id": "c4", "kind": "claim", "text": "unfounded"},
        ],
        "justifications": [
            {"claim": "c0", "antecedents": ["e0"]},
            {"claim": "c1", "antecedents": ["e1", "c0"]},
            {"claim": "c2", "antecedents": ["e2"]},
        ],
    }
    location = memory_location()
    with Memory.create(location) as memory:
        memory.add_evidence("x0")
        memory.import_graph(document, source="g", author="ana")
        memory.import_graph(
            {
                "nodes": [
                    {"id": "e8", "kind": "evidence", "expression": "1+1", "value": "2"},
                    {"id": "e9", "kind": "evidence"},
                    {"id": "c7", "kind": "claim", "text": "unfounded too"},
                    {"id": "c8", "kind": "claim"},
                    {"id": "c9", "kind": "claim"},
                ],
                "justifications": [{"claim": "c9", "antecedents": ["e9", "e8"]}],
            },
            source="h",
        )
        memory.import_graph(  # an author and no node of its own: every node is the author's
            {
                "nodes": [
                    {"id": "e7", "kind": "evidence", "text": "x"},
                    {"id": "c6", "kind": "claim"},
                ],
                "justifications": [{"claim": "c6", "antecedents": ["e7"]}],
            },
            source="i",
            author="dee",
        )
        memory.import_graph(  # plain (ids and kinds only): written as columns (add_node_rows)
            {
                "nodes": [
                    {"id": "c\\N", "kind": "claim"},
                    {"id": "e\\t é", "kind": "evidence"},
                    {"id": "c5", "kind": "claim"},
                ],
                "justifications": [{"claim": "c5", "antecedents": ["e\\t é"]}],
            },
            source="j",
        )
        rows = {row["id"]: row for row in memory.table("nodes")}
    expected = {  # id: (num, kind, text, author, expression, value, event, status)
        "x0": (0, "evidence", "", None, None, None, 2, "active"),
        "e0": (1, "evidence", "", "ana", None, None, 3, "active"),
        "e1": (2, "evidence", "seen", "ana", None, None, 3, "active"),
        "e2": (3, "evidence", "", "ana", "2*3", "6", 3, "active"),
        "e3": (4, "evidence", "", "bo", None, None, 3, "active"),
        "c0": (5, "claim", "", "ana", None, None, 3, "active"),
        "c1": (6, "claim", "so", "ana", None, None, 3, "active"),
        "c2": (7, "claim", "", "cy", None, None, 3, "active"),
        "c3": (8, "claim", "", "ana", None, None, 3, "inactive"),
        "c4": (9, "claim", "unfounded", "ana", None, None, 3, "inactive"),
        "e8": (10, "evidence", "", None, "1+1", "2", 4, "active"),
        "e9": (11, "evidence", "", None, None, None, 4, "active"),
        "c7": (12, "claim", "unfounded too", None, None, None, 4, "inactive"),
        "c8": (13, "claim", "", None, None, None, 4, "inactive"),
        "c9": (14, "claim", "", None, None, None, 4, "active"),
        "e7": (15, "evidence", "x", "dee", None, None, 5, "active"),
        "c6": (16, "claim", "", "dee", None, None, 5, "active"),
        "e\\t é": (17, "evidence", "", None, None, None, 6, "active"),
        "c5": (18, "claim", "", None, None, None, 6, "active"),
        "c\\N": (19, "claim", "", None, None, None, 6, "inactive"),
    }
    columns = ("num", "kind", "text", "author", "expression", "value", "event", "status")
    assert {node: tuple(row[c] for c in columns) for node, row in rows.items()} == expected


_PLAIN_PIECES = st.sampled_from(["a", "Z9", "-", " ", "x" * 130])  # ids near the rules' edges
_ODD_PIECES = st.sampled_from(["a", ",", "\t", "\x7f", "é", "\u200b", "", "\n", " ,", ", "])
_IDS = st.lists(
    st.lists(_PLAIN_PIECES, max_size=3).map("".join)
    | st.lists(_ODD_PIECES, max_size=3).map("".join)
    | st.text(max_size=6),
    max_size=6,
)


@pytest.mark.slow
@settings(max_examples=600)
@given(_IDS)
@example(["a ", "b"])
@example(["a", " b"])
@example([" a", "b"])
@example(["a", "b "])
@example(["a", "", "b"])
@example(["a", "x" * 257])
@example(["a,b", "c"])
@example(["a", "b\x7f"])
@example(["é ", "b"])
def test_all_ids_at_once_agrees_with_each_id(values):
    """The import checks all ids in one pass over their comma-joined text; its answer is
    always the one id-by-id check's (spaces beside commas, control and non-ASCII characters,
    empty and overlong ids)."""
    from theory.model.ids import all_ids, id_problem

    assert all_ids(values) == all(id_problem(value) is None for value in values)


def test_rederive_derives_in_the_order_of_the_region_on_every_counting_path():
    """Claims derivable at once come out in the region's order (then in propagation order),
    whichever path counts: the order of a plan's activations and revisions depends on it."""
    from contextlib import nullcontext
    from unittest import mock

    from theory.semantics.fixpoint import _rederive

    structure = SupportStructure.build(
        ["e1", "e2", "e3"],
        ["a", "b", "c", "d"],
        [("a", ["e1"]), ("b", ["e2"]), ("c", ["e3"]), ("d", ["a", "b"])],
    )
    index = GrowingIndex.of(structure)  # flat arrays, as a new memory's import builds it
    region = [index.number[n] for n in ("c", "a", "d", "b")]
    expected = [index.number[n] for n in ("c", "a", "b", "d")]
    for flat_counts in (False, True):
        for arrays in (True, False):
            active = bytearray(index.size)
            for e in ("e1", "e2", "e3"):
                active[index.number[e]] = 1
            slices = mock.patch(
                "theory.semantics.fixpoint.flat_justification_rows", return_value=None
            )
            with nullcontext() if arrays else slices:
                assert _rederive(index, active, list(region), flat_counts=flat_counts) == expected


@pytest.mark.slow
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(jst.support_structures(cycles=True, max_evidence=6, max_claims=14), st.data())
def test_derivation_pointers_alike_a_rank_at_a_time_and_item_by_item(structure, data):
    """jtms.engine.incremental._derivation_pointers over flat arrays (a whole rank in array
    operations, or item by item below SMALL_LEVEL slots) gives the pointers and ranks of the
    queue over lists, in the same order (the order the support rows are written in)."""
    from unittest import mock

    from jtms.engine.incremental import _derivation_pointers
    from theory.semantics.fixpoint import active_numbers

    arrays = GrowingIndex.of(structure)  # flat arrays
    lists = GrowingIndex()  # per-node lists, the queue's path
    lists.extend(
        [(arrays.ids[n], bool(arrays.is_evidence[n])) for n in range(arrays.size)],
        [(c, arrays.just_antecedents[j]) for j, c in enumerate(arrays.just_claim)],
        canonical=True,
    )
    blocked = set(data.draw(st.lists(st.sampled_from(range(arrays.size)), max_size=3)))
    flags = bytearray(active_numbers(arrays, blocked=sorted(blocked)))
    sources = [n for n in range(arrays.size) if flags[n] and arrays.is_evidence[n]]
    expected = _derivation_pointers(lists, bytearray(flags), sources, 0, 0)
    assert [list(d.items()) for d in expected] == [
        list(d.items()) for d in _derivation_pointers(arrays, bytearray(flags), sources, 0, 0)
    ]
    with mock.patch("jtms.engine.incremental.SMALL_LEVEL", 0):  # every rank in array operations
        got = _derivation_pointers(arrays, bytearray(flags), sources, 0, 0)
    assert [list(d.items()) for d in expected] == [list(d.items()) for d in got]


@pytest.mark.slow
@given(
    st.sampled_from([41, 1 << 40, 1 << 58, 1 << 61]).flatmap(
        lambda bound: st.tuples(
            st.lists(st.integers(0, 40) | st.integers(bound - 3, bound - 1), max_size=60),
            st.just(bound),
        )
    )
)
def test_stable_order_is_the_stable_argsort(keys_and_bound):
    """theory.model.index.stable_order (one plain sort of key * n + position, or the stable argsort
    when that could overflow) orders equal keys by position, as a stable sort does."""
    import numpy as np

    from theory.model.index import stable_order

    keys, bound = keys_and_bound
    values = np.asarray(keys, dtype=np.int64)
    assert stable_order(values, bound).tolist() == np.argsort(values, kind="stable").tolist()


@given(
    st.sampled_from([21, 1 << 58, 1 << 61]).flatmap(
        lambda bound: st.tuples(
            st.lists(st.integers(0, 20) | st.integers(bound - 3, bound - 1), max_size=60),
            st.just(bound),
        )
    )
)
def test_first_occurrences_are_numpys_unique_first_indices_in_order(keys_and_bound):
    """theory.model.index.first_occurrences: where each distinct key first occurs, ascending, for
    keys of a small range, of one whose plain sort needs unsigned 64 bits (2**58 with 17 keys
    or more: a million-claim import's pairs) and of one so wide that it would overflow even
    those."""
    import numpy as np

    from theory.model.index import first_occurrences

    keys, bound = keys_and_bound
    values = np.asarray(keys, dtype=np.int64)
    expected = sorted(np.unique(values, return_index=True)[1].tolist()) if keys else []
    assert first_occurrences(values, bound).tolist() == expected


@given(st.lists(st.integers(-5, 40), max_size=60))
def test_distinct_sorted_is_numpys_unique(values):
    """theory.model.index.distinct_sorted: np.unique of an integer array, without numpy.ma."""
    import numpy as np

    from theory.model.index import distinct_sorted

    array = np.asarray(values, dtype=np.int64)
    assert distinct_sorted(array).tolist() == np.unique(array).tolist()


def test_an_audit_of_a_memory_opened_from_its_checkpoint_never_imports_numpy_ma(tmp_path):
    """np.unique imports numpy.ma on its first call (about 27 ms of a one-shot `jtms audit`);
    the support region and the downstream walk do without it."""
    import subprocess
    import sys
    import textwrap

    path = tmp_path / "m.db"
    claims = [f"c{i}" for i in range(50)]
    with Memory.create(path) as memory:
        memory.import_graph(
            {
                "nodes": [{"id": "e0", "kind": "evidence"}, {"id": "e1", "kind": "evidence"}]
                + [{"id": c, "kind": "claim"} for c in claims],
                "justifications": [{"claim": "c0", "antecedents": ["e0"]}]
                + [{"claim": "c0", "antecedents": ["e1", "c49"]}]
                + [{"claim": c, "antecedents": [p]} for p, c in zip(claims, claims[1:])],
            }
        )
        memory.checkpoint()  # opening reads it: the index as flat arrays
    script = textwrap.dedent(
        f"""
        import sys
        from jtms.memory.memory import Memory
        with Memory.open({str(path)!r}) as memory:
            result = memory.audit(["e0"], reason="r")
        assert len(result.retired) == 51, sorted(result.retired)
        print("numpy.ma" in sys.modules)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


@pytest.mark.slow
@settings(max_examples=300)
@given(jst.support_structures(cycles=True, max_evidence=6, max_claims=12), st.data())
def test_retraction_by_ranks_in_arrays_and_claim_by_claim_agree(structure, data):
    """Phase 1 of the planner's oracle a rank at a time (tests.retract_oracle._retract_by_ranks) gives
    the same plan whether each rank goes through array operations (SMALL_LEVEL 1) or item by
    item (SMALL_LEVEL above every rank), and the same statuses as the visit claim by claim
    (no compressed rows); every state stays verified and ranks stay derivation depths."""
    from unittest import mock

    from tests import retract_oracle

    states = [SupportState(GrowingIndex.of(structure)) for _ in range(3)]
    index = states[0].index
    open_audits: list[list[int]] = []
    for _ in range(data.draw(st.integers(1, 4), label="steps")):
        if open_audits and data.draw(st.booleans(), label="reinstate"):
            unblock = open_audits.pop()
            plans = [state.plan_extend(unblock=unblock) for state in states]
        else:
            roots = sorted(index.numbers(data.draw(jst.audits(structure, min_size=1))))
            # the planner's Python oracle (the compiled planner is compared with it in
            # tests/jtms/memory/test_retract_kernel.py)
            with mock.patch.object(retract_oracle, "SMALL_LEVEL", 1):
                in_arrays = retract_oracle.reference_plan(states[0], tuple(roots))
            with mock.patch.object(retract_oracle, "SMALL_LEVEL", 1 << 30):
                item_by_item = retract_oracle.reference_plan(states[1], tuple(roots))
            with mock.patch.object(retract_oracle, "all_arrays", lambda *values: False):
                by_claim = retract_oracle.reference_plan(states[2], tuple(roots))
            assert in_arrays == item_by_item
            assert set(by_claim.deactivated) == set(in_arrays.deactivated)
            plans = [in_arrays, item_by_item, by_claim]
            open_audits.append(roots)
        for state, plan in zip(states, plans):
            state.apply(plan)
            assert state.verify() == []
            _assigned_ranks_are_derivations(state, plan)
        assert states[0].active == states[2].active


@pytest.mark.slow
@settings(max_examples=200)
@given(jst.support_structures(cycles=True, max_evidence=6, max_claims=12), st.data())
def test_apply_in_arrays_equals_apply_one_by_one(structure, data):
    """SupportState.apply assigns a plan of APPLY_IN_ARRAYS_FROM nodes or more as arrays: the
    same flags, pointers, pointer flags, ranks and blocks as one by one, through audits and
    reinstatements."""
    from unittest import mock

    import jtms.engine.incremental

    arrays, loop = (SupportState(GrowingIndex.of(structure)) for _ in range(2))
    for plan in _random_plans(arrays, structure, data, 5):
        with mock.patch.object(jtms.engine.incremental, "APPLY_IN_ARRAYS_FROM", 0):
            arrays.apply(plan)
        with mock.patch.object(jtms.engine.incremental, "APPLY_IN_ARRAYS_FROM", 1 << 30):
            loop.apply(plan)
        assert arrays.active == loop.active and arrays.pointer == loop.pointer
        assert arrays.support == loop.support and arrays.rank == loop.rank
        assert arrays.blocks == loop.blocks
        assert arrays.verify() == []


def test_a_switch_is_usable_from_the_next_rank_on():
    """a <- e0 | e1, b <- e0 | a, c <- b: auditing e0, a and b are one rank. Rank by rank, a
    switches to e1 but b may not rest on a in the same rank: b goes out (and c after it), and
    phase 2 re-derives both on a; claim by claim, b switches to a after a did. Same statuses,
    one visit more, and the arrays and the item-by-item rule agree."""
    from unittest import mock

    from tests import retract_oracle

    structure = SupportStructure.build(
        ["e0", "e1"],
        ["a", "b", "c"],
        [("a", ["e0"]), ("a", ["e1"]), ("b", ["e0"]), ("b", ["a"]), ("c", ["b"])],
    )
    plans = []
    for small, arrays in ((1, True), (1 << 30, True), (1, False)):
        state = SupportState(GrowingIndex.of(structure))
        roots = state.index.numbers(["e0"])
        with mock.patch.object(retract_oracle, "SMALL_LEVEL", small):
            if arrays:
                plans.append(retract_oracle.reference_plan(state, tuple(roots)))
            else:
                with mock.patch.object(retract_oracle, "all_arrays", lambda *v: False):
                    plans.append(retract_oracle.reference_plan(state, tuple(roots)))
        state.apply(plans[-1])
        assert state.verify() == []
        assert state.index.names(n for n in range(5) if state.active[n]) == {"e1", "a", "b", "c"}
    in_arrays, item_by_item, by_claim = plans
    assert in_arrays == item_by_item
    assert (in_arrays.visited, by_claim.visited) == (4, 3)
    index = GrowingIndex.of(structure)
    b_on_a = index.justs_of[index.number["b"]][1]
    assert in_arrays.supports[index.number["b"]] == by_claim.supports[index.number["b"]] == b_on_a


def _ids_one_by_one(values, what, limit, allow_empty=True):
    """check_ids as it was: each value checked in turn, the limit when one more comes."""
    from theory.model.errors import InputError
    from theory.model.ids import check_id

    items = []
    for value in values:
        if len(items) == limit:
            raise InputError(f"{what} holds more than {limit} ids (at most {limit})")
        items.append(check_id(value, f"{what} id"))
    if not items and not allow_empty:
        raise InputError(f"{what} is empty (name at least one id)")
    return items


@pytest.mark.slow
@settings(max_examples=400)
@given(
    st.lists(
        st.sampled_from(["e1", "c 2", " x", "a,b", "", "é", "y\x00", "z" * 257, 7, None, "q"]),
        max_size=6,
    ),
    st.integers(0, 7),
    st.booleans(),
)
def test_check_ids_all_at_once_answers_as_id_by_id(values, limit, allow_empty):
    """jtms.memory.limits.check_ids checks an audit's ids in one pass when it can; its result
    or its error (which id, or the limit) is always the one of checking each id in turn."""
    from jtms.memory.limits import check_ids
    from theory.model.errors import InputError

    def outcome(check):
        try:
            return check(iter(values), "roots", limit, allow_empty=allow_empty)
        except InputError as error:
            return ("error", str(error), error.node)

    assert outcome(check_ids) == outcome(_ids_one_by_one)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ids=st.lists(
        st.text(st.characters(codec="utf-8"), min_size=1, max_size=12).filter(
            lambda value: id_problem(value) is None
        ),
        min_size=1,
        max_size=12,
        unique=True,
    ),
    data=st.data(),
)
def test_a_plain_import_stores_any_ids_kinds_and_statuses(tmp_path_factory, ids, data):
    """A plain document's nodes are written as columns (SQLite: one statement over a JSON
    array of the ids and a byte string of the statuses): every id (quotes, backslashes,
    characters outside the BMP) comes back with its kind and its status, numbered densely."""
    evidence = data.draw(st.integers(0, len(ids)), label="evidence")
    nodes = [
        {"id": node, "kind": "evidence" if k < evidence else "claim"} for k, node in enumerate(ids)
    ]
    justifications = [
        {"claim": ids[c], "antecedents": data.draw(st.sets(st.sampled_from(ids[:c]), min_size=1))}
        for c in range(evidence, len(ids))
        if c and data.draw(st.booleans())
    ]
    for justification in justifications:
        justification["antecedents"] = sorted(justification["antecedents"])
    path = tmp_path_factory.mktemp("plain") / "m.db"
    with Memory.create(str(path)) as memory:
        memory.import_graph({"nodes": nodes, "justifications": justifications}, source="g")
        rows = sorted(
            (row["num"], row["id"], row["kind"], row["status"]) for row in memory.table("nodes")
        )
        active = {node for node in ids if memory.is_active(node)}
    assert [num for num, _, _, _ in rows] == list(range(len(ids)))
    assert {node: kind for _, node, kind, _ in rows} == {n["id"]: n["kind"] for n in nodes}
    assert {node for _, node, _, status in rows if status == "active"} == active
    derived = {n["id"] for n in nodes if n["kind"] == "evidence"}
    changed = True
    while changed:
        changed = False
        for j in justifications:
            if j["claim"] not in derived and set(j["antecedents"]) <= derived:
                derived.add(j["claim"])
                changed = True
    assert active == derived
