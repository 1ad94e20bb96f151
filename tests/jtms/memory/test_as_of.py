"""History as of any moment: ``Memory.as_of(event)`` and ``--as-of EVENT_ID|ISO_TIME`` on
explain, history, context and state. Property: the view as of event k equals a memory rebuilt
from the first k events (same operations, replayed on a fresh memory)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jtms.cli import main
from jtms.memory.memory import Memory
from theory.model.errors import InputError

SEED = {
    "nodes": [
        {"id": "e1", "kind": "evidence", "text": "assay one"},
        {"id": "e2", "kind": "evidence", "text": "assay two"},
        {"id": "c1", "kind": "claim", "text": "the mechanism"},
        {"id": "c2", "kind": "claim", "text": "the plan"},
    ],
    "justifications": [
        {"claim": "c1", "antecedents": ["e1"]},
        {"claim": "c1", "antecedents": ["e2"]},
        {"claim": "c2", "antecedents": ["c1"]},
    ],
}


def _apply(memory: Memory, op: tuple[Any, ...]) -> int:
    kind, *args = op
    if kind == "evidence":
        return memory.add_evidence(args[0], text=f"evidence {args[0]}").event_id
    if kind == "claim":
        return memory.add_claim(args[0], args[1], text=f"claim {args[0]}").event_id
    if kind == "justification":
        return memory.add_justification(args[0], args[1]).event_id
    if kind == "audit":
        result = memory.audit(args[0], reason=f"audit of {args[0]}")
        assert result.audit_id is not None
        return result.audit_id
    return memory.reinstate(args[0]).event_id


def _portrait(memory: Memory) -> dict[str, Any]:
    """Everything a reader can see, times aside."""
    with memory.snapshot():
        nodes = sorted(memory.structure().nodes)
        return {
            "active": sorted(memory.active_ids()),
            "blocked": sorted(memory.blocked_ids()),
            "audits": memory.open_audits(),
            "explain": {n: memory.explain(n).as_dict() for n in nodes},
            "history": {
                n: [(r["status"], r["event"], r["kind"], r["reason"]) for r in memory.history(n)]
                for n in nodes
            },
            "audited_by": {n: memory.audits_naming(n) for n in nodes},
            "withdrawn": [{k: v for k, v in w.items() if k != "time"} for w in memory.withdrawn()],
            "context": memory.context(400).text,
        }


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_the_view_as_of_event_k_equals_a_memory_rebuilt_from_the_first_k_events(
    tmp_path_factory, data
):
    path = tmp_path_factory.mktemp("asof") / "m.db"
    ops: list[tuple[int, tuple[Any, ...]]] = []
    with Memory.create(path) as memory:
        memory.import_graph(SEED, source="seed")
        ids = ["e1", "e2", "c1", "c2"]
        claims = ["c1", "c2"]
        for step in range(data.draw(st.integers(1, 8), label="steps")):
            choice = data.draw(
                st.sampled_from(
                    [
                        "evidence",
                        "claim",
                        "justification",
                        "audit",
                        "audit",
                        "reinstate",
                        "checkpoint",
                    ]
                ),
                label="op",
            )
            if choice == "evidence":
                op: tuple[Any, ...] = ("evidence", f"x{step}")
                ids.append(f"x{step}")
            elif choice == "claim":
                justs = data.draw(
                    st.lists(
                        st.lists(st.sampled_from(ids), min_size=1, max_size=2, unique=True),
                        max_size=2,
                    ),
                    label="justs",
                )
                op = ("claim", f"k{step}", justs)
                ids.append(f"k{step}")
                claims.append(f"k{step}")
            elif choice == "justification":
                claim = data.draw(st.sampled_from(claims), label="claim")
                ants = data.draw(
                    st.lists(st.sampled_from(ids), min_size=1, max_size=2, unique=True)
                )
                op = ("justification", claim, ants)
            elif choice == "audit":
                op = (
                    "audit",
                    data.draw(
                        st.lists(st.sampled_from(ids), min_size=1, max_size=2, unique=True),
                        label="roots",
                    ),
                )
            elif choice == "reinstate" and memory.open_audits():
                op = ("reinstate", data.draw(st.sampled_from(sorted(memory.open_audits()))))
            else:
                memory.checkpoint()  # not an event: views before it replay the log
                continue
            try:
                ops.append((_apply(memory, op), op))
            except Exception as error:  # a duplicate justification: no event was written
                assert "already recorded" in str(error)
        last = memory.last_event
        assert [e for e, _ in ops] == list(range(3, last + 1))
        for k in range(1, last + 1):
            view = memory.as_of(k)
            with Memory.create(":memory:", durability="off") as rebuilt:
                if k >= 2:
                    rebuilt.import_graph(SEED, source="seed")
                for event, op in ops:
                    if event <= k:
                        assert _apply(rebuilt, op) == event
                assert _portrait(view) == _portrait(rebuilt), f"as of event {k}"
        assert _portrait(memory.as_of(last)) == _portrait(memory)


@pytest.fixture
def db(tmp_path) -> Path:
    path = tmp_path / "m.db"
    with Memory.create(path) as memory:
        memory.import_graph(SEED, source="seed")  # event 2
    return path


def _json(capsys, argv: list[str]) -> Any:
    capsys.readouterr()
    assert main(argv + ["--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_the_pre_audit_certificate_is_recovered(db, capsys):
    """c1 <- e1 | e2 rests on e1; auditing e1 switches it to e2 (a support switch, stored):
    explain --as-of the event before the audit shows the certificate that held then."""
    now = _json(capsys, ["explain", "c2", "--db", str(db)])
    assert now["certificate"] == [
        {"claim": "c1", "antecedents": ["e1"]},
        {"claim": "c2", "antecedents": ["c1"]},
    ]
    audit = _json(capsys, ["audit", "--invalidate", "e1", "--reason", "r", "--db", str(db)])
    assert audit["retired"] == ["e1"]
    after = _json(capsys, ["explain", "c2", "--db", str(db)])
    assert after["certificate"][0] == {"claim": "c1", "antecedents": ["e2"]}
    before = _json(capsys, ["explain", "c2", "--as-of", "2", "--db", str(db)])
    assert before == now
    with Memory.open(db) as memory:
        paging = ("counts", "cursor")  # the CLI's --json adds the lists' lengths
        assert memory.explain("c2", as_of=2).as_dict() == {
            k: v for k, v in now.items() if k not in paging
        }


def test_as_of_on_history_context_state_and_times(db, capsys):
    with Memory.open(db) as memory:
        audit = memory.audit(["e1", "e2"], reason="both assays wrong")
        memory.add_evidence("e3")
        times = {e["id"]: e["time"] for e in memory.table("events")}
    history = _json(capsys, ["history", "c1", "--as-of", "2", "--db", str(db)])
    assert [r["status"] for r in history["revisions"]] == ["active"] and history["active"]
    assert history["audited_by"] == []
    assert [
        r["status"] for r in _json(capsys, ["history", "c1", "--db", str(db)])["revisions"]
    ] == ["active", "inactive"]
    state = _json(capsys, ["state", "--as-of", "2", "--db", str(db)])
    assert state == {
        "active": ["c1", "c2", "e1", "e2"],
        "inactive": [],
        "counts": {"active": 4, "inactive": 0},
        "cursor": None,
    }
    assert _json(capsys, ["state", "--db", str(db)])["inactive"] == ["c1", "c2", "e1", "e2"]
    assert _json(
        capsys, ["state", "--ids", "c1", "--as-of", times[audit.audit_id], "--db", str(db)]
    )["inactive"] == ["c1"]
    context = _json(capsys, ["context", "--budget", "300", "--as-of", "2", "--db", str(db)])
    assert "the plan" in json.dumps(context)
    for bad, message in [
        ("99", "no event 99"),
        ("0", "no event 0"),
        ("yesterday", "ISO time"),
        ("1999-01-01T00:00:00Z", "did not exist yet"),
        ("100000000000000000000000", "no event"),
    ]:
        capsys.readouterr()
        assert main(["explain", "c1", "--as-of", bad, "--db", str(db)]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err
    capsys.readouterr()
    assert main(["explain", "e3", "--as-of", "2", "--db", str(db)]) == 2  # did not exist then
    assert "node 'e3': did not exist yet as of event 2: event" in capsys.readouterr().err
    with Memory.open(db) as memory:
        view = memory.as_of(2)
        with pytest.raises(InputError, match="read-only"):
            view.add_evidence("e9")
        assert view.as_of_event == 2 and memory.as_of_event is None


def test_a_view_lists_only_what_existed_then(db):
    """texts, creation_events and events of a view stop at its event (the explorer's search
    and timeline read them); events report what each changed."""
    with Memory.open(db) as memory:
        audit = memory.audit(["e1", "e2"], reason="both wrong")
        memory.add_evidence("e3", text="assay three")
        view = memory.as_of(audit.audit_id)
        assert set(view.texts()) == set(view.structure().nodes) == {"e1", "e2", "c1", "c2"}
        assert set(memory.texts()) == {"e1", "e2", "c1", "c2", "e3"}
        assert view.creation_events() == {"e1": 2, "e2": 2, "c1": 2, "c2": 2}
        events = memory.events()
        assert [e["kind"] for e in events] == ["init", "import", "audit", "add-evidence"]
        assert events[1]["created"] == ["c1", "c2", "e1", "e2"] and events[1]["source"] == "seed"
        assert events[2]["roots"] == ["e1", "e2"] and events[2]["deactivated"] == [
            "c1",
            "c2",
            "e1",
            "e2",
        ]
        assert events[3]["created"] == ["e3"] and events[3]["activated"] == []
        assert view.events() == events[:3] and view.events(after=1, until=99) == events[1:3]
        assert (
            memory.events(after=3, until=3) == [] and memory.events(after=-5, until=1) == events[:1]
        )
        back = memory.reinstate(audit.audit_id)
        assert memory.events(after=4)[0]["activated"] == ["c1", "c2", "e1", "e2"]
        assert memory.events(after=4)[0]["target"] == audit.audit_id == back.event_id - 2
        memory.add_evidence("calc", expression="6*7", value="42")  # what `review` re-executes
        assert view.calculations() == [] and memory.as_of(back.event_id).calculations() == []
        assert memory.calculations() == [("calc", "6*7", "42")]


def test_a_node_of_a_later_event_is_refused_from_its_own_row(memory_location, monkeypatch):
    """A view of the past refuses a node created later, naming the event and its time, from
    that node's row: never a read of every node's creation (a memory of 100k nodes)."""
    with Memory.create(memory_location()) as memory:
        memory.add_evidence("e1")
        first = memory.last_event
        memory.add_evidence("e2")
        created = memory.events()[-1]
        past = memory.as_of(first)

        def every_node() -> dict[str, int]:
            raise AssertionError("every node's creation read to refuse one node")

        monkeypatch.setattr(past._store, "creation_events", every_node)
        with pytest.raises(InputError) as refused:
            past.explain("e2")
        assert str(refused.value).endswith(
            f"did not exist yet as of event {first}: event {created['id']} created it later "
            f"({created['time']})"
        )
        with pytest.raises(InputError, match="unknown"):
            past.explain("ghost")
