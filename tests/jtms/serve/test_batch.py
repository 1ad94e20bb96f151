"""Batches (issue 58, item 3): ``Memory.add_batch``, the MCP tool ``add_batch`` and ``jtms
import`` of a document that names stored nodes: one transaction, checked whole (one bad item:
nothing written, the error names the item), idempotent with a key; and a claim justified only
by itself refused (item 5) in ``Memory``, so the CLI and MCP refuse it too."""

from __future__ import annotations

import json
import random
from typing import Any

import anyio
import pytest
from mcp import Client

from jtms.memory.memory import Memory
from jtms.serve.tools import MemoryAccess, build_server
from tests.serve_helpers import call, error, jtms, jtms_json, new_memory
from theory.model.errors import InputError


def stored() -> Memory:
    memory = Memory.create(":memory:")
    memory.add_evidence("e0")
    memory.add_claim("c0", [["e0"]])
    return memory


NODES = [
    {"id": "e1", "kind": "evidence", "text": "assay A"},
    {"id": "c1", "kind": "claim", "text": "mechanism M"},
    {"id": "c2", "kind": "claim"},
]
JUSTIFICATIONS = [
    {"claim": "c1", "antecedents": ["e1", "c0"]},  # a stored antecedent
    {"claim": "c2", "antecedents": ["c1"]},
    {"claim": "c0", "antecedents": ["e1"]},  # a stored claim's new justification
]


def test_a_batch_writes_everything_in_one_event():
    memory = stored()
    before = memory.last_event
    change = memory.add_batch(NODES, JUSTIFICATIONS, [{"id": "n1", "nodes": ["c2", "c0"]}])
    assert change.event_id == before + 1 == memory.last_event
    assert change.added == 4 and change.activated == {"e1", "c1", "c2"}
    assert memory.active_ids() == {"e0", "c0", "e1", "c1", "c2"}
    assert memory.is_active("n1")  # a contradiction as soon as it is recorded
    assert memory.texts()["c1"] == "mechanism M"
    memory.audit(["e0"], reason="contaminated")  # c0 keeps the batch's justification
    assert memory.active_ids() == {"c0", "e1", "c1", "c2"}
    assert memory.integrity_problems() == []


def test_a_batch_activates_stored_claims():
    memory = Memory.create(":memory:")
    memory.add_evidence("e0")
    memory.add_claim("c0", [["e0"]])
    memory.audit(["e0"], reason="r")
    change = memory.add_batch(
        [{"id": "e1", "kind": "evidence"}], [{"claim": "c0", "antecedents": ["e1"]}]
    )
    assert change.activated == {"e1", "c0"}
    assert memory.events(after=change.event_id - 1)[0]["activated"] == ["c0"]


BAD = [
    ([{"id": "e0", "kind": "evidence"}], [], "nodes[0]: duplicate id (already in the memory)"),
    (
        [{"id": "x", "kind": "claim"}, {"id": "x", "kind": "claim"}],
        [],
        "nodes[1] ('x'): duplicate id (also nodes[0])",
    ),
    ([{"id": "x", "kind": "fact"}], [], "nodes[0] ('x'): kind must be 'evidence' or 'claim'"),
    ([{"id": "x", "kind": "claim", "txt": ""}], [], "nodes[0]: unknown key(s) 'txt'"),
    (
        [{"id": "x", "kind": "claim", "expression": "1+1", "value": "2"}],
        [],
        "nodes[0] ('x'): only evidence records a calculation",
    ),
    (
        [{"id": "x", "kind": "claim"}],
        [{"claim": "x", "antecedents": ["nope"]}],
        "justifications[0] (claim 'x'): unknown antecedent 'nope'",
    ),
    (
        [],
        [{"claim": "ghost", "antecedents": []}],
        "justifications[0] (claim 'ghost'): unknown claim",
    ),
    ([], [{"claim": "e0", "antecedents": []}], "justifications[0] (claim 'e0'): 'e0' is evidence"),
    (
        [],
        [{"claim": "c0", "antecedents": ["e0"]}],
        "justifications[0] (claim 'c0'): this justification is already recorded",
    ),
    (
        [{"id": "x", "kind": "claim"}],
        [{"claim": "x"}],
        "justifications[0] (claim 'x'): needs 'antecedents'",
    ),
    (
        [{"id": "x", "kind": "claim"}],
        [{"claim": "x", "antecedents": [f"a{k}" for k in range(1001)]}],
        "1001 antecedents, at most 1000",
    ),
    (
        [{"id": "x", "kind": "claim"}],
        [{"claim": "x", "antecedents": ["x"]}, {"claim": "x", "antecedents": ["x", "e0"]}],
        "nodes[0]: claim 'x' is justified only by itself",
    ),
    (
        [{"id": "x", "kind": "claim", "valid_until": "2030-01-01T00:00:00Z"}],
        [],
        "nodes[0] ('x'): only evidence expires",
    ),
    (
        [{"id": "x", "kind": "evidence", "valid_until": "9999-12-31T23:59:59-05:00"}],
        [],
        "nodes[0] ('x'): valid_until: '9999-12-31T23:59:59-05:00' is out of range",
    ),
    (
        [{"id": "x", "kind": "evidence", "valid_until": "next tuesday"}],
        [],
        "nodes[0] ('x'): valid_until: expected an ISO time, got 'next tuesday'",
    ),
]


@pytest.mark.parametrize(("nodes", "justifications", "said"), BAD)
def test_one_bad_item_writes_nothing_and_is_named(nodes, justifications, said):
    memory = stored()
    good = [{"id": "fine", "kind": "evidence"}]  # valid items before the bad one: not written
    before = (memory.last_event, memory.active_ids())
    with pytest.raises(InputError) as refused:
        memory.add_batch(good + nodes, justifications)
    assert said.replace("nodes[0]", "nodes[1]").replace(
        "nodes[1] ('x'): duplicate id (also nodes[1])",
        "nodes[2] ('x'): duplicate id (also nodes[1])",
    ) in str(refused.value)
    assert (memory.last_event, memory.active_ids()) == before
    assert "fine" not in memory


def test_a_bad_nogood_writes_nothing():
    memory = stored()
    before = memory.last_event
    with pytest.raises(InputError, match=r"nogoods\[0\] \('n1'\): unknown node 'ghost'"):
        memory.add_batch(NODES[:1], [], [{"id": "n1", "nodes": ["e1", "ghost"]}])
    assert "e1" not in memory and memory.last_event == before


def test_a_key_makes_a_batch_idempotent():
    memory = stored()
    first = memory.add_batch(NODES, JUSTIFICATIONS, idempotency_key="k-1")
    again = memory.add_batch(NODES, JUSTIFICATIONS, idempotency_key="k-1")
    assert (again.event_id, again.activated, again.added) == (
        first.event_id,
        first.activated,
        first.added,
    )
    assert memory.last_event == first.event_id
    with pytest.raises(InputError, match="already used by another call"):
        memory.add_batch(NODES[:1], [], idempotency_key="k-1")


def test_a_batch_agrees_with_the_bulk_import():
    """The same self-contained graph written as a batch (node by node into the index) and
    as an import (the bulk path): the same active nodes, loops included."""
    rng = random.Random(5)
    for _ in range(20):
        n = rng.randint(2, 30)
        nodes = [
            {"id": f"n{k}", "kind": "evidence" if rng.random() < 0.3 else "claim"} for k in range(n)
        ]
        claims = [node["id"] for node in nodes if node["kind"] == "claim"]
        ids = [node["id"] for node in nodes]
        justifications = [
            {"claim": claim, "antecedents": rng.sample(ids, rng.randint(0, 2))}
            for claim in claims
            for _ in range(rng.randint(0, 2))
        ]
        justifications = [j for j in justifications if j["claim"] not in j["antecedents"]]
        batch, imported = Memory.create(":memory:"), Memory.create(":memory:")
        batch.add_batch(nodes, justifications)
        imported.import_graph({"nodes": nodes, "justifications": justifications})
        assert batch.active_ids() == imported.active_ids()
        assert batch.integrity_problems() == []


@pytest.mark.slow
def test_a_claim_justified_only_by_itself_is_refused(tmp_path):
    memory = stored()
    for justifications in ([["itself"]], [["itself", "e0"], ["itself"]]):
        with pytest.raises(InputError, match="justified only by itself"):
            memory.add_claim("itself", justifications)
    memory.add_claim("loop", [["loop"], ["e0"]])  # one justification without it: accepted
    db = new_memory(tmp_path / "m.db")
    refused = jtms("add-claim", "itself", "--because", "itself", "--db", db, check=False)
    assert refused.returncode == 2 and "justified only by itself" in refused.stderr


@pytest.mark.slow
def test_add_batch_over_mcp(tmp_path):
    db = new_memory(tmp_path / "m.db")
    with Memory.open(db) as memory:
        memory.add_evidence("e0")
        memory.add_claim("c0", [["e0"]])
    server = build_server(MemoryAccess(Memory.open(db)))

    async def main() -> dict[str, Any]:
        async with Client(server) as client:
            arguments = {"nodes": NODES, "justifications": JUSTIFICATIONS, "idempotency_key": "b1"}
            first = await call(client, "add_batch", **arguments)
            again = await call(client, "add_batch", **arguments)
            assert again == first
            said = await error(
                client,
                "add_batch",
                nodes=[{"id": "x", "kind": "claim"}],
                justifications=[{"claim": "x", "antecedents": ["x"]}],
            )
            assert "justified only by itself" in said and "nodes[0]" in said
            said = await error(client, "add_batch", nodes=[{"id": "y", "kind": "claim", "txt": ""}])
            assert "bad arguments" in said and "nodes[0]" in said
            said = await error(client, "add_claim", id="z", justifications=[["z"]])
            assert "justified only by itself" in said
            expiring = [{"id": "quote", "kind": "evidence", "valid_until": "2999-01-01T00:00:00Z"}]
            said = await error(
                client,
                "add_batch",
                nodes=[{**expiring[0], "valid_until": "9999-12-31T23:59:59-05:00"}],
            )
            assert "nodes[0] ('quote'): valid_until: " in said and "out of range" in said
            await call(client, "add_batch", nodes=expiring)
            return first

    first = anyio.run(main)
    assert first["added"] == 3 and first["active"] == 3 and first["inactive"] == []
    assert first["activated"] == []  # c0 was active already
    assert jtms_json("state", "--db", db)["inactive"] == []
    with Memory.open(db) as memory:
        assert list(memory._store.expiries().values()) == ["2999-01-01T00:00:00.000+00:00"]


@pytest.mark.slow
def test_jtms_import_of_a_batch_naming_stored_nodes(tmp_path):
    db = new_memory(tmp_path / "m.db")
    jtms("add-evidence", "e0", "--db", db)
    graph = tmp_path / "batch.json"
    graph.write_text(json.dumps({"nodes": NODES[:2], "justifications": JUSTIFICATIONS[:1]}))
    wrong = tmp_path / "wrong.json"
    wrong.write_text(
        json.dumps({"nodes": NODES[:1], "justifications": [{"claim": "c9", "antecedents": ["e1"]}]})
    )
    refused = jtms("import", str(wrong), "--db", db, check=False)
    assert (
        refused.returncode == 2
        and "justifications[0] (claim 'c9'): unknown claim" in refused.stderr
    )
    jtms("add-claim", "c0", "--because", "e0", "--db", db)
    first = jtms_json("import", str(graph), "--db", db, "--idempotency-key", "i1")
    again = jtms_json("import", str(graph), "--db", db, "--idempotency-key", "i1")
    assert again["event_id"] == first["event_id"] and first["nodes"] == 2
    assert sorted(jtms_json("state", "--db", db)["active"]) == ["c0", "c1", "e0", "e1"]


def test_a_batch_on_each_backend(memory_location):
    """The same batch, a refused one and a repeat, on SQLite and PostgreSQL."""
    with Memory.create(memory_location()) as memory:
        memory.add_evidence("e0")
        memory.add_claim("c0", [["e0"]])
        before = memory.last_event
        with pytest.raises(InputError, match=r"justifications\[1\] \(claim 'c2'\): unknown"):
            memory.add_batch(NODES, [JUSTIFICATIONS[0], {"claim": "c2", "antecedents": ["zz"]}])
        assert memory.last_event == before and "e1" not in memory
        first = memory.add_batch(
            NODES, JUSTIFICATIONS, [{"id": "n1", "nodes": ["c2", "c0"]}], idempotency_key="k"
        )
        again = memory.add_batch(
            NODES, JUSTIFICATIONS, [{"id": "n1", "nodes": ["c2", "c0"]}], idempotency_key="k"
        )
        assert again.event_id == first.event_id == memory.last_event
        assert again.activated == first.activated == {"e1", "c1", "c2"}
        assert memory.is_active("n1") and memory.integrity_problems() == []


def test_a_batch_stores_valid_until_as_add_evidence_does(memory_location):
    """A batch's evidence expires as add_evidence's and a graph file's: the same stored
    time (UTC, to the millisecond), and one past is recorded as expired by the next write."""
    later, past = "2999-01-01T00:00:00+01:00", "2020-01-01T00:00:00Z"
    with Memory.create(memory_location()) as one_by_one:
        one_by_one.add_evidence("quote", valid_until=later)
        one_by_one.add_evidence("price", valid_until=past)
        wanted = one_by_one._store.expiries()
    with Memory.create(memory_location()) as memory:
        memory.add_batch(
            [
                {"id": "quote", "kind": "evidence", "valid_until": later},
                {"id": "price", "kind": "evidence", "valid_until": past},
                {"id": "cheap", "kind": "claim"},
                {"id": "plain", "kind": "evidence", "valid_until": None},  # none, as a file's
            ],
            [{"claim": "cheap", "antecedents": ["price"]}],
        )
        assert (
            memory._store.expiries()
            == wanted
            == {0: "2998-12-31T23:00:00.000+00:00", 1: "2020-01-01T00:00:00.000+00:00"}
        )
        memory.add_evidence("next")  # the write records the expiry first
        expiry = memory.events()[-2]
        assert (expiry["reason"], expiry["roots"]) == ("expired", ["price"])
        assert not memory.is_active("cheap") and memory.is_active("quote")


@pytest.mark.parametrize("moment", ["0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-05:00"])
def test_a_valid_until_out_of_range_is_one_line(tmp_path, moment):
    from jtms.memory.memory import Memory
    from theory.model.errors import InputError

    with Memory.create(str(tmp_path / "m.db")) as memory:
        with pytest.raises(InputError, match="out of range"):
            memory.add_evidence("e1", valid_until=moment)
        assert "e1" not in memory.texts()
