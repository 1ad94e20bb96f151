"""The Python API's arguments found unchecked by a fuzzing pass (2026-12-05): each is an
:class:`InputError` naming the argument, never a ``TypeError`` or a driver's error, and a
closed memory refuses every call the same way on both backends."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from jtms.memory.memory import Memory
from theory.model.errors import InputError


@pytest.fixture
def memory(memory_location: Callable[[], str]) -> Iterator[Memory]:
    where = memory_location()
    with Memory.create(where, durability="off") as created:
        created.add_evidence("e1")
        created.add_claim("c1", [["e1"]])
        created.add_claim("c2", [["c1"]])
    with Memory.open(where) as opened:
        yield opened


@pytest.mark.parametrize("limit", ["3", 1.5, True, -5, None.__class__, [1]])
def test_kept_page_checks_its_limit(memory: Memory, limit: Any) -> None:
    with pytest.raises(InputError, match="limit"):
        memory.kept_page(["e1"], limit=limit)
    assert memory.kept_page(["e1"], limit=1)[0] == memory.kept_page(["e1"])[0]


@pytest.mark.parametrize("key", [2**70, "a\ud800", None, True, b"k", ""])
def test_idempotency_key_checks_the_key(memory: Memory, key: Any) -> None:
    with pytest.raises(InputError, match="idempotency_key"):
        memory.idempotency_key(key)


@pytest.mark.parametrize(
    "request_, outcomes, what",
    [
        (None, (), "request"),
        ("a\ud800", (), "request"),
        (5, (), "request"),
        (b"x", (), "request"),
        ("digest", None, "outcomes"),
        ("digest", 5, "outcomes"),
        ("digest", "abc", "outcomes"),
        ("digest", [None], "outcomes"),
    ],
)
def test_keyed_calls_check_request_and_outcomes(
    memory: Memory, request_: Any, outcomes: Any, what: str
) -> None:
    before = memory.last_event
    with pytest.raises(InputError, match=what):
        memory.keep_key("k1", request_, before, outcomes)
    with pytest.raises(InputError, match=what):
        with memory.keyed("k2", request_, outcomes):
            memory.add_evidence("e2")
    assert memory.last_event == before and memory.idempotency_key("k1") is None


@pytest.mark.parametrize("write_first", [False, True])
def test_keyed_blocks_do_not_nest(memory: Memory, write_first: bool) -> None:
    """Nested before the outer block's write, the inner key replaced the outer one's: a
    retry of the outer call would have written twice."""
    with memory.keyed("outer", "d1"):
        if write_first:
            memory.add_evidence("e2")
        with pytest.raises(InputError, match="do not nest"):
            with memory.keyed("inner", "d2"):
                memory.add_evidence("e3")
        if not write_first:
            memory.add_evidence("e2")
    assert memory.idempotency_key("outer") is not None
    assert memory.idempotency_key("inner") is None and "e3" not in memory


CALLS: list[tuple[str, Callable[[Memory], object]]] = [
    ("last_event", lambda m: m.last_event),
    ("active_ids", lambda m: m.active_ids()),
    ("explain", lambda m: m.explain("c1")),
    ("contains", lambda m: "c1" in m),
    ("as_of", lambda m: m.as_of(1)),
    ("state", lambda m: m.state),
    ("snapshot", lambda m: m.snapshot().__enter__()),
    ("wait_for_change", lambda m: m.wait_for_change(timeout=0)),
    ("set_durability", lambda m: m.set_durability("off")),
    ("add_evidence", lambda m: m.add_evidence("z")),
    ("audit", lambda m: m.audit(["e1"], reason="r")),
]


@pytest.mark.parametrize("name, call", CALLS, ids=[name for name, _ in CALLS])
def test_a_closed_memory_refuses_every_call(memory: Memory, name: str, call: Callable) -> None:
    """SQLite raised the driver's ProgrammingError; PostgreSQL kept reading and writing."""
    view = memory.as_of(memory.last_event)
    memory.close()
    with pytest.raises(InputError, match="closed"):
        call(memory)
    if name not in ("add_evidence", "audit", "set_durability"):
        with pytest.raises(InputError, match="closed"):
            call(view)
    memory.close()  # twice: harmless


def test_theory_refuses_a_lone_string_where_it_takes_ids():
    """`exact(g, "ab")` audited the evidence `a` and `b` (a string is an iterable of its
    characters) and said nothing, though `ab` is a node of its own; `active_state(blocked=)`,
    `check_structure(claims=)` likewise. Now a lone string, an item that is not a string and
    a claim that is not a string are each an InputError naming the argument."""
    import theory

    g = theory.SupportStructure.build(
        ["a", "b", "ab"], ["c", "cd"], [("c", ["a"]), ("c", ["b"]), ("cd", ["ab"])]
    )
    calls: list[Callable[[], object]] = [
        lambda: theory.exact(g, "ab"),
        lambda: theory.influence(g, "ab"),
        lambda: theory.active_state(g, blocked="ab"),
        lambda: theory.check_structure(g, claims="cd"),
        lambda: list(theory.stream_check(g, claims="cd")),
    ]
    for call in calls:
        with pytest.raises(InputError, match="got the string"):
            call()
    with pytest.raises(InputError, match="audit id 1: not a string"):
        theory.exact(g, ["a", 1])  # type: ignore[list-item]
    with pytest.raises(InputError, match="a claim is an id"):
        theory.minimal_justifications(g, ["c"])  # type: ignore[arg-type]
    assert theory.exact(g, ["ab"]) == {"ab", "cd"}
    assert theory.exact(g, iter(["a"])) == {"a"}
    assert [r.id for r in theory.check_structure(g, claims=("cd",)).claims] == ["cd"]


def test_theory_counts_and_budgets_are_checked():
    """`check_structure(g, max_listed=-1)` listed every minimal justification but the last
    (a slice) and `max_listed=1.5` raised TypeError deep in the listing;
    `minimal_justifications(g, c, limit=-1)` raised islice's ValueError ("Stop argument for
    islice()"), naming no argument. Each is now an InputError naming it."""
    import theory

    g = theory.SupportStructure.build(
        ["a", "b", "e"], ["c"], [("c", ["a"]), ("c", ["b"]), ("c", ["e"])]
    )
    for options in (
        {"max_listed": -1},
        {"max_listed": 1.5},
        {"label_budget": None},
        {"label_budget": -1},
        {"relevance_budget": -1},
        {"relevance_budget": True},
    ):
        name = next(iter(options))
        with pytest.raises(InputError, match=name):
            theory.check_structure(g, **options)  # type: ignore[arg-type]
        with pytest.raises(InputError, match=name):
            theory.stream_check(g, **options)  # type: ignore[arg-type]
    for limit in (-1, 2.0, "3"):
        with pytest.raises(InputError, match="limit"):
            theory.minimal_justifications(g, "c", limit=limit)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="label_budget"):
        theory.minimal_justifications(g, "c", label_budget=-2)
    assert len(theory.minimal_justifications(g, "c", limit=2)) == 2
    assert len(theory.check_structure(g, max_listed=None).claims[0].minimal_justifications) == 3


def test_a_graph_file_is_a_path_not_a_file_descriptor():
    """theory.load_graph(1) opened descriptor 1 (open() takes ints), read stdout and closed
    it; anything but a str or a path-like is refused before any file is opened."""
    import os

    from theory.io.graphfile import load_document, load_graph
    from theory.model.errors import InputError

    read, write = os.pipe()
    os.write(write, b"{}")  # a descriptor opened would read this, not block
    os.close(write)
    try:
        for bad in (read, 2.5, None, b"g.json"):
            with pytest.raises(InputError, match="is a path"):
                load_graph(bad)  # type: ignore[arg-type]
            with pytest.raises(InputError):
                load_document(bad)  # type: ignore[arg-type]
        os.fstat(read)  # still open
    finally:
        os.close(read)
