"""Issue 33, the property: generated hostile values (integers past 4,300 digits, lone
surrogates, control characters, NUL, huge strings, wrong types) thrown at every public
``Memory`` method and at the memory commands of the CLI (in process), on both backends.
Every one is refused: :class:`InputError` with a one-line message (the API), exit 2 with one
line on stderr (the CLI), and nothing is written (the event count, the stored rows)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from conftest import memory_dump
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jtms.cli import main
from jtms.memory.memory import Memory
from tests.cli_helpers import small_memory
from theory.model.errors import InputError

HUGE_INT = 10**5000
# huge integers are built while drawing: hypothesis would try to print them in a strategy
HUGE_INTS = st.sampled_from([1, -1]).map(lambda sign: sign * 10**5000)
HUGE_TEXT = "x" * 100_001
BAD_STRINGS = st.one_of(
    st.sampled_from(["a\x00b", "\x00", "a\ud800b", "\udcff", "\udfff" * 3, HUGE_TEXT]),
    st.builds(lambda a, b: a + "\x00" + b, st.text(max_size=5), st.text(max_size=5)),
    st.builds(lambda a, b: a + "\ud800" + b, st.text(max_size=5), st.text(max_size=5)),
)
WRONG_TYPES = st.one_of(
    st.sampled_from(
        [None, 5, 1.5, float("nan"), float("inf"), True, b"e1", [["e1"]], [5], {"e1": 1}, object()]
    ),
    HUGE_INTS,
)
# per kind of argument: values that are never valid for it
BAD: dict[str, st.SearchStrategy[Any]] = {
    "id": st.one_of(
        BAD_STRINGS,
        WRONG_TYPES,
        st.sampled_from(["", " e1", "e1,e2", "a\x07b", "a\nb", "\u2028", "y" * 257]),
    ),
    "text": st.one_of(BAD_STRINGS, WRONG_TYPES.filter(lambda v: v is not None)),
    "optional_text": st.one_of(BAD_STRINGS, WRONG_TYPES.filter(lambda v: v is not None)),
    "ids": st.one_of(
        WRONG_TYPES.filter(lambda v: not isinstance(v, dict)),
        st.lists(
            st.one_of(BAD_STRINGS, st.sampled_from([5, None, ["e1"]])), min_size=1, max_size=3
        ),
    ),
    "int": st.one_of(st.sampled_from(["1", "a", 1.5, None, [1], True]), HUGE_INTS, BAD_STRINGS),
    "seconds": st.one_of(
        st.sampled_from(["x", float("inf"), float("nan"), -1, 1e300, True, [1]]), HUGE_INTS
    ),
    "choice": st.one_of(BAD_STRINGS, WRONG_TYPES),
}

# method -> its valid arguments, each with its kind (a hostile value replaces one of them)
CALLS: list[tuple[str, list[tuple[str, Any, str]]]] = [
    (
        "add_evidence",
        [("node_id", "new", "id"), ("text", "t", "text"), ("author", "ana", "optional_text")],
    ),
    (
        "add_claim",
        [
            ("node_id", "new", "id"),
            ("justifications", [["e1"]], "ids_list"),
            ("text", "t", "text"),
            ("author", None, "optional_text"),
        ],
    ),
    (
        "add_justification",
        [("claim", "c1", "id"), ("antecedents", ["e2"], "ids"), ("author", None, "optional_text")],
    ),
    (
        "add_nogood",
        [
            ("nogood_id", "new", "id"),
            ("nodes", ["e1", "e2"], "ids"),
            ("text", "", "text"),
            ("author", None, "optional_text"),
        ],
    ),
    (
        "audit",
        [("roots", ["e1"], "ids"), ("reason", "r", "text"), ("reviewer", None, "optional_text")],
    ),
    ("preview", [("roots", ["e1"], "ids")]),
    ("kept", [("roots", ["e1"], "ids")]),
    ("reinstate", [("audit_id", 1, "int"), ("reason", None, "optional_text")]),
    ("history", [("node_id", "e1", "id")]),
    ("audits_naming", [("node_id", "e1", "id")]),
    ("explain", [("node_id", "c1", "id")]),
    ("is_active", [("node_id", "c1", "id")]),
    ("node", [("node_id", "c1", "id")]),
    ("context", [("budget", 100, "int"), ("query", None, "optional_text")]),
    ("events", [("after", 0, "int"), ("until", None, "optional_int")]),
    ("withdrawn", [("limit", None, "optional_int")]),
    ("diagnose", [("limit", None, "optional_int")]),
    ("table", [("name", "events", "choice")]),
    ("as_of", [("moment", 1, "moment")]),
    ("event_at", [("moment", 1, "moment")]),
    (
        "import_graph",
        [
            ("graph", {"nodes": []}, "graph"),
            ("source", "g", "text"),
            ("author", None, "optional_text"),
        ],
    ),
    (
        "add_batch",
        [
            ("nodes", [{"id": "new", "kind": "evidence"}], "batch_nodes"),
            ("author", None, "optional_text"),
        ],
    ),
    ("wait_for_change", [("after", 0, "optional_int"), ("timeout", 0, "seconds")]),
    ("set_durability", [("durability", "off", "choice")]),
]
BAD["optional_int"] = BAD["int"].filter(lambda v: v is not None)
BAD["ids_list"] = st.one_of(
    WRONG_TYPES.filter(lambda v: v != [["e1"]]), st.lists(BAD["ids"], min_size=1, max_size=2)
)
BAD["moment"] = st.one_of(
    BAD_STRINGS, HUGE_INTS, st.sampled_from([None, 1.5, [1], True, 0, "yesterday"])
)
BAD["graph"] = st.one_of(
    WRONG_TYPES.filter(lambda v: not isinstance(v, dict)),
    st.builds(
        lambda node_id, text: {"nodes": [{"id": node_id, "kind": "evidence", "text": text}]},
        st.one_of(BAD["id"], st.just("fresh")),
        st.one_of(BAD["text"], st.just("ok")),
    ).filter(lambda g: g["nodes"][0] != {"id": "fresh", "kind": "evidence", "text": "ok"}),
)
BAD["batch_nodes"] = st.one_of(
    WRONG_TYPES, BAD["graph"].filter(lambda g: isinstance(g, dict)).map(lambda g: g["nodes"])
)

FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture
def location(memory_location: Callable[[], str]) -> str:
    """A memory on one backend: evidence e1, e2 and claim c1 <- e1."""
    return small_memory(memory_location())


@st.composite
def hostile_calls(draw: st.DrawFn) -> tuple[str, dict[str, Any], str]:
    method, parameters = draw(st.sampled_from(CALLS))
    position = draw(st.integers(0, len(parameters) - 1))
    arguments = {name: value for name, value, _ in parameters}
    name, _, kind = parameters[position]
    arguments[name] = draw(BAD[kind])
    return method, arguments, name


@pytest.mark.slow
@FUZZ
@given(call=hostile_calls())
def test_every_public_method_refuses_hostile_values(
    location: str, call: tuple[str, dict[str, Any], str]
) -> None:
    method, arguments, argument = call
    with Memory.open(location) as memory:
        before = memory.last_event
        try:
            getattr(memory, method)(**arguments)
        except InputError as error:
            assert "\n" not in str(error) and len(str(error)) < 2000, str(error)[:200]
        else:
            pytest.fail(f"{method}({argument}=...) accepted a hostile value")
        assert memory.last_event == before
    with Memory.open(location) as memory:
        assert memory.last_event == before


# --- the CLI ------------------------------------------------------------------------------------

CLI_STRINGS = st.one_of(
    st.sampled_from(["a\x00b", "\udcff", "a\ud800b", "\udcc3\udca9"]),
    st.builds(lambda a, b: a + "\udcff" + b, st.text(max_size=4), st.text(max_size=4)),
)
CLI_BAD: dict[str, st.SearchStrategy[str]] = {
    "id": st.one_of(CLI_STRINGS, st.sampled_from(["", "y" * 257, "a\x07b", "e1,", "\u2028"])),
    "text": st.one_of(CLI_STRINGS, st.just("t" * 20_001)),
    "number": st.one_of(
        CLI_STRINGS, st.sampled_from(["9" * 5000, "-9" + "9" * 5000, "abc", "1e400", "-5"])
    ),
    "event": st.one_of(CLI_STRINGS, st.sampled_from(["9" * 5000, "0", "abc", "-1"])),
    "seconds": st.one_of(
        CLI_STRINGS, st.sampled_from(["1e300", "inf", "nan", "-1", "0", "9" * 5000, "abc"])
    ),
}
COMMANDS: list[tuple[list[str], dict[int, str]]] = [  # argv, position -> kind of that value
    (["add-evidence", "new", "--text", "t", "--author", "ana"], {1: "id", 3: "text", 5: "text"}),
    (["add-claim", "new", "--because", "e1", "--text", "t"], {1: "id", 3: "id", 5: "text"}),
    (
        ["audit", "--invalidate", "e1", "--reason", "r", "--reviewer", "ana"],
        {2: "id", 4: "text", 6: "text"},
    ),
    (["audit", "--invalidate", "e1", "--reason", "r", "--dry-run"], {2: "id", 4: "text"}),
    (["reinstate", "1", "--reason", "r"], {1: "event", 3: "text"}),
    (["history", "e1", "--as-of", "2"], {1: "id", 3: "event"}),
    (["explain", "c1", "--as-of", "2"], {1: "id", 3: "event"}),
    (["context", "--budget", "100", "--query", "q"], {2: "number", 4: "text"}),
    (["state", "--ids", "e1,c1"], {2: "id"}),
    (["review", "--time-limit", "1", "--reviewer", "ana"], {2: "seconds", 4: "text"}),
]


@st.composite
def hostile_commands(draw: st.DrawFn) -> list[str]:
    argv, slots = draw(st.sampled_from(COMMANDS))
    argv = list(argv)
    position = draw(st.sampled_from(sorted(slots)))
    argv[position] = draw(CLI_BAD[slots[position]])
    return argv


@pytest.mark.slow
@FUZZ
@given(argv=hostile_commands())
def test_every_command_refuses_hostile_values(
    location: str, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    before = memory_dump(location)
    capsys.readouterr()
    try:
        code = main([*argv, "--db", location])
    except SystemExit as exit_:  # argparse usage errors
        code = exit_.code if isinstance(exit_.code, int) else 2
    err = capsys.readouterr().err
    assert code == 2, (argv[0], code, err[:300])
    assert err.count("\n") == 1 and err.startswith("jtms: error:"), err[:300]
    assert "Traceback" not in err and len(err) < 1200
    assert memory_dump(location) == before, f"{argv[0]} changed the memory"
