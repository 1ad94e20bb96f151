"""jtms.engine.id_table: the numbers of a checkpoint's ids without a dict of every id."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jtms.engine.id_table import IdTable, table_arrays

ID_TEXT = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    min_size=1,
    max_size=12,
)


def _table(ids: list[str], **kwargs) -> IdTable:
    return IdTable(ids, *table_arrays(ids), **kwargs)


@pytest.mark.slow
@given(
    st.lists(ID_TEXT, max_size=300, unique=True),
    st.lists(ID_TEXT | st.integers() | st.none(), max_size=30),
    st.lists(ID_TEXT, max_size=10),
    st.randoms(use_true_random=False),
)
def test_an_id_table_answers_as_the_dict_of_its_ids(ids, probes, added, rng):
    """Every lookup (ids, near misses, other types), in any order and across the switch to
    the dict, after nodes are added one at a time and in bulk, equals the dict's answer."""
    ids = list(ids)
    built = []
    table = _table(ids, on_built=built.append)
    expected = dict(zip(ids, range(len(ids))))
    assert len(table) == len(expected)
    queries = ids + probes + [i + "x" for i in ids[:20]] + [i[:-1] for i in ids[:20]]
    rng.shuffle(queries)
    for key in queries:
        assert table.get(key) == expected.get(key)
        assert (key in table) == (key in expected)
        if key in expected:
            assert table[key] == expected[key]
        else:
            with pytest.raises(KeyError):
                table[key]
    fresh = [a for a in dict.fromkeys(added) if a not in expected]
    for k, node_id in enumerate(fresh):
        if k % 2:
            table[node_id] = len(ids)
        else:
            table.update([(node_id, len(ids))])
        expected[node_id] = len(ids)
        ids.append(node_id)
    for key in list(expected) + probes:
        assert table.get(key) == expected.get(key)
    assert len(table) == len(expected)
    assert dict(table.items()) == expected
    assert len(built) == 1 and built[0] == expected  # built once, and handed to its owner
    with pytest.raises(TypeError):
        table.get(["unhashable"])  # type: ignore[arg-type]


def test_an_audit_of_existing_ids_builds_no_dict_and_a_miss_or_many_lookups_do():
    """The point of the table: a few hundred lookups of ids that exist leave the dict
    unbuilt; one unknown id, or lookups past a sixteenth of the ids, build it."""
    ids = [f"e{i}" for i in range(20_000)] + [f"c{i}" for i in range(100_000)]
    built: list[dict] = []
    table = _table(ids, on_built=built.append)
    picked = random.Random(1).sample(range(len(ids)), 200)
    assert [table[ids[n]] for n in picked] == picked
    assert built == []
    assert "c100000" not in table and len(built) == 1
    table = _table(ids, on_built=built.append)
    for n in range(len(ids) // 16 + 1):
        table[ids[n]]
    assert len(built) == 2


def test_a_damaged_table_costs_time_never_an_answer():
    """Slots swapped between buckets: no lookup is wrong (a candidate must equal the key, a
    miss asks the dict), and the table says it does not agree with its ids."""
    ids = [f"n{i}" for i in range(5000)]
    offsets, slots = table_arrays(ids)
    assert _table(ids).agrees()
    damaged = slots.copy()
    damaged[:2500] = damaged[:2500][::-1]
    table = IdTable(ids, offsets, damaged)
    assert not table.agrees()
    assert all(table[node_id] == n for n, node_id in enumerate(ids))
    with pytest.raises(ValueError):
        IdTable(ids, offsets, slots[:-1])  # a table of other ids
    bad = slots.copy()
    bad[0] = len(ids)
    with pytest.raises(ValueError):
        IdTable(ids, offsets, bad)  # a slot past the ids


def test_a_memory_opened_from_a_checkpoint_numbers_ids_by_the_table(tmp_path):
    """A memory reopened from its checkpoint answers audits, additions and queries through
    the table (no dict until it needs one), and the integrity check compares the table."""
    from jtms import Memory
    from jtms.engine.id_table import IdTable as Table

    path = tmp_path / "m.db"
    document = {
        "nodes": [{"id": f"e{i}", "kind": "evidence"} for i in range(300)]
        + [{"id": f"c{i}", "kind": "claim"} for i in range(600)],
        "justifications": [
            {"claim": f"c{i}", "antecedents": [f"e{i % 300}", f"e{(7 * i) % 300}"]}
            for i in range(600)
        ]
        + [{"claim": f"c{i}", "antecedents": [f"c{i - 1}"]} for i in range(1, 600, 3)],
    }
    with Memory.create(path) as memory:
        memory.import_graph(document, source="t")
        memory.checkpoint()
        expected_active = set(memory.active_ids())
    with Memory.open(path) as memory:
        assert memory.is_active("c5")
        with memory.snapshot():
            index = memory._loaded_now().index
        assert isinstance(index.number, Table)
        outcome = memory.audit(["e1", "e2"], reason="t")
        assert isinstance(index.number, Table)  # two roots and their downstream: no dict
        assert set(memory.active_ids()) == expected_active - set(outcome.retired) - {"e1", "e2"}
        memory.add_evidence("e_new")
        memory.add_claim("c_new", [["e_new", "c5"]])
        assert memory.is_active("c_new") and not memory.is_active("e1")
        assert memory.integrity_problems() == []
    with Memory.open(path) as memory:
        assert memory.is_active("c_new")
        assert memory.integrity_problems() == []


def test_a_damaged_table_in_a_stored_checkpoint_is_reported_and_answers_stay_right(tmp_path):
    """The checkpoint's id slots reversed by hand (every value still a number of an id):
    the reopened memory still finds every id, and integrity_problems names the checkpoint."""
    import json
    import sqlite3
    from array import array

    from jtms import Memory

    path = tmp_path / "m.db"
    document = {
        "nodes": [{"id": f"e{i}", "kind": "evidence"} for i in range(50)]
        + [{"id": f"c{i}", "kind": "claim"} for i in range(100)],
        "justifications": [{"claim": f"c{i}", "antecedents": [f"e{i % 50}"]} for i in range(100)],
    }
    with Memory.create(path) as memory:
        memory.import_graph(document, source="t")
        memory.checkpoint()
        assert memory.integrity_problems() == []
    db = sqlite3.connect(path)
    event, data = db.execute("SELECT event, data FROM checkpoints").fetchone()
    magic_end = data.index(b"\n") + 1
    header_end = data.index(b"\n", magic_end) + 1
    position = header_end
    for name, length in json.loads(data[magic_end:header_end])["sections"]:
        if name == "id_slots":
            slots = array("i", data[position : position + length])
            slots.reverse()
            data = data[:position] + slots.tobytes() + data[position + length :]
        position += length
    db.execute("UPDATE checkpoints SET data = ? WHERE event = ?", (data, event))
    db.commit()
    db.close()
    with Memory.open(path) as memory:
        assert memory.is_active("c7") and memory.is_active("e49")
        outcome = memory.audit(["e3"], reason="t")
        assert outcome.retired == frozenset({"e3", "c3", "c53"})
        problems = memory.integrity_problems()
        assert any("checkpoint" in p for p in problems), problems
