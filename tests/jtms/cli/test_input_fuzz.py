"""Random input to the CLI, in process (jtms.cli.console): random bytes, random JSON and random
ids fed to import, check, revise, supports, audit and add-claim. Every run ends in exit 0, 1 or
2 (never a traceback), an exit 2 says why in one line on stderr, and leaves the store exactly
as it was (docs/design.md section 5)."""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jtms.cli import main
from jtms.memory.memory import Memory

pytestmark = pytest.mark.slow

EXAMPLES = 40  # per test: enough to reach every validation branch, fast enough for CI

# ids as people (and attackers) write them: commas, spaces, brackets, control characters
IDS = st.one_of(
    st.sampled_from(
        [
            "e0",
            "e1",
            "c0",
            "c1",
            "x",
            "e0,e1",
            " e0",
            "e0 ",
            "",
            "[/x]",
            "a\x00b",
            "c0,",
            ",",
            "\u2028",
            "[bold]c0",
            "e0,c0",
            "x" * 5000,
        ]
    ),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=12),
)
JSON_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8), IDS
)
JSON = st.recursive(
    JSON_SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
NODE = st.fixed_dictionaries(
    {"id": IDS, "kind": st.sampled_from(["evidence", "claim", "other", 3])},
    optional={
        "text": JSON_SCALARS,
        "expression": st.sampled_from(["2*3", "factorial(10**6)", "__import__('os')", "1/0"]),
        "value": st.sampled_from(["6", "x", "7"]),
        "antecedents": JSON,
        "extra": JSON,
    },
)
JUSTIFICATION = st.fixed_dictionaries(
    {"claim": IDS},
    optional={
        "antecedents": st.one_of(st.lists(IDS, max_size=3), JSON),
        "antecedent": st.lists(IDS, max_size=2),
        "x": JSON,
    },
)
GRAPHS = st.fixed_dictionaries(
    {"nodes": st.lists(NODE, max_size=5)},
    optional={
        "justifications": st.lists(JUSTIFICATION, max_size=4),
        "nogoods": st.lists(st.fixed_dictionaries({"id": IDS, "nodes": st.lists(IDS)}), max_size=2),
        "nodez": JSON,
    },
)
DOCUMENTS = st.one_of(
    st.binary(max_size=200).map(lambda b: ("bytes", b)),
    JSON.map(lambda v: ("json", json.dumps(v).encode())),
    GRAPHS.map(lambda g: ("graph", json.dumps(g).encode())),
    st.integers(1, 3000).map(lambda depth: ("deep", b"[" * depth * 40 + b"]" * depth * 40)),
)
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def run(argv: list[str]) -> tuple[int, str, str]:
    """``jtms ARGV`` in process: (exit code, stdout, stderr); any exception fails the test."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exit_:  # argparse usage errors
            code = exit_.code if isinstance(exit_.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def dump(db: Path) -> list[str]:
    connection = sqlite3.connect(db)
    try:
        return list(connection.iterdump())
    finally:
        connection.close()


@pytest.fixture(scope="module")
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as name:
        path = Path(name)
        with Memory.create(path / "m.db", durability="off") as memory:
            memory.add_evidence("e0")
            memory.add_evidence("e1")
            memory.add_claim("c0", [["e0"], ["e1"]])
        (path / "good.json").write_text(
            json.dumps(
                {
                    "nodes": [{"id": "e0", "kind": "evidence"}, {"id": "c0", "kind": "claim"}],
                    "justifications": [{"claim": "c0", "antecedents": ["e0"]}],
                }
            )
        )
        yield path


def check(code: int, err: str, before: list[str] | None = None, db: Path | None = None) -> None:
    assert code in (0, 1, 2), (code, err)
    assert "Traceback" not in err
    if code == 2:
        assert err.count("\n") == 1 and err.startswith("jtms: error: "), err
        assert len(err) < 1200, len(err)  # long values are cut
        if before is not None and db is not None:
            assert dump(db) == before, "exit 2 changed the store"


@FUZZ
@given(document=DOCUMENTS, ids=st.lists(IDS, min_size=1, max_size=3))
def test_random_documents_and_ids_to_the_graph_commands(
    folder: Path, document: tuple[str, bytes], ids: list[str]
) -> None:
    _, content = document
    graph = folder / "random.json"
    graph.write_bytes(content)
    joined = ",".join(ids)
    db = folder / "m.db"
    for argv in (
        ["check", str(graph)],
        ["check", str(graph), "--json"],
        ["revise", str(graph), "--audit", joined, "--json"],
        ["supports", str(graph), "--claim", ids[0]],
        ["revise", str(folder / "good.json"), "--audit", joined],
        ["supports", str(folder / "good.json"), "--claim", ids[0], "--json"],
    ):
        code, _, err = run(argv)
        check(code, err)
    before = dump(db)
    code, _, err = run(["import", str(graph), "--db", str(db)])
    check(code, err, before, db)


@FUZZ
@given(
    ids=st.lists(IDS, min_size=1, max_size=3), reason=st.one_of(IDS, st.just("")), dry=st.booleans()
)
def test_random_ids_to_the_memory_commands(
    folder: Path, ids: list[str], reason: str, dry: bool
) -> None:
    db = folder / "m.db"
    joined = ",".join(ids)
    for argv in (
        ["audit", "--invalidate", joined, "--reason", reason, "--db", str(db)]
        + (["--dry-run"] if dry else []),
        ["add-claim", ids[0], "--because", joined, "--db", str(db)],
        ["add-claim", ids[-1], "--premise", "--text", reason, "--db", str(db)],
        ["audit", "--invalidate", ids[0], "--reason", "r", "--json", "--db", str(db)],
        ["explain", ids[0], "--db", str(db)],
        ["history", ids[0], "--db", str(db)],
        ["reinstate", ids[0], "--db", str(db)],
    ):
        before = dump(db)
        code, _, err = run(argv)
        check(code, err, before, db)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["reinstate", "100000000000000000000"], "no such audit"),
        (["reinstate", "-1"], "no such audit"),
        (["add-claim", "a,b", "--premise"], "comma"),
        (["add-claim", " a", "--premise"], "whitespace"),
        (["add-claim", "a\x07", "--premise"], "control character"),
        (["add-evidence", ""], "empty"),
        (["add-claim", "y", "--because", "x" * 1_000_000], "characters)"),
    ],
)
def test_bad_ids_and_numbers_are_one_line_exit_2(
    folder: Path, argv: list[str], message: str
) -> None:
    db = folder / "m.db"
    before = dump(db)
    code, _, err = run(argv + ["--db", str(db)])
    check(code, err, before, db)
    assert code == 2 and message in err, err


def test_unknown_keys_are_named_with_where(folder: Path) -> None:
    graph = folder / "typo.json"
    graph.write_text(
        json.dumps(
            {
                "nodes": [{"id": "x0", "kind": "evidence"}, {"id": "x1", "kind": "claim"}],
                "justifications": [{"claim": "x1", "antecedent": ["x0"]}],
            }
        )
    )
    for argv in (["check", str(graph)], ["import", str(graph), "--db", str(folder / "m.db")]):
        code, _, err = run(argv)
        assert code == 2
        assert (
            "unknown key(s) in justifications[0]: 'antecedent' (did you mean 'antecedents'?)" in err
        )
    graph.write_text(json.dumps({"nodes": [{"id": "x0", "kind": "evidence", "txt": "t"}]}))
    assert "nodes[0]: 'txt' (did you mean 'text'?)" in run(["check", str(graph)])[2]
    graph.write_text(json.dumps({"nodes": [], "nogoods": []}))
    assert run(["check", str(graph)])[0] == 0  # "nogoods" is part of the format
    graph.write_text(json.dumps({"nodes": [], "edges": []}))
    assert "the top level: 'edges'" in run(["check", str(graph)])[2]


def test_deep_nesting_is_exit_2(folder: Path) -> None:
    graph = folder / "deep.json"
    graph.write_text("[" * 100_000 + "]" * 100_000)
    for argv in (
        ["check", str(graph)],
        ["import", str(graph), "--db", str(folder / "m.db")],
        ["import-memory", str(graph), "--db", str(folder / "fresh.db")],
    ):
        code, _, err = run(argv)
        assert code == 2 and "nested too deeply" in err, err


def test_markup_in_ids_and_reasons_is_printed_literally(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    assert run(["init", "--db", db])[0] == 0
    assert run(["add-evidence", "[/x]", "--text", "[bold]t :smile:", "--db", db]) == (
        0,
        "added evidence [/x]\n",
        "",
    )
    assert run(["add-claim", "c[/y]", "--because", "[/x]", "--db", db])[0] == 0
    code, out, _ = run(["audit", "--invalidate", "[/x]", "--reason", "[/z] [red]bad", "--db", db])
    assert code == 0 and "[/x]" in out and "c[/y]" in out
    for argv in (["history", "[/x]"], ["explain", "c[/y]"], ["context", "--budget", "200"]):
        code, out, err = run(argv + ["--db", db])
        assert code == 0 and err == "", err
    assert "[/z] [red]bad" in run(["history", "[/x]", "--db", db])[1]


def test_unwritable_output_paths_are_exit_2_before_any_work(tmp_path: Path) -> None:
    missing = tmp_path / "missing" / "deeper"
    for argv, option in (
        (["enumerate", "--max-n", "6", "--plot", str(missing / "p.png")], "--plot"),
        (["prove", "--certificate-dir", str(missing / "certs")], "--certificate-dir"),
        (["fuzz", "--rule", "influence", "--out", str(missing / "g.json")], "--out"),
        (["enumerate", "--n7", "--rows", "0:1", "--out", str(missing / "p.json")], "--out"),
    ):
        code, out, err = run(argv)
        assert (
            code == 2 and err.startswith(f"jtms: error: {option} ") and "no such directory" in err
        ), err
        assert out == ""
    assert not (tmp_path / "missing").exists()


def test_fuzz_leaves_no_hypothesis_folder_unless_asked(tmp_path: Path) -> None:
    """In a fresh process (in this one hypothesis has already written what it caches)."""
    import os
    import subprocess
    import sys

    environment = dict(os.environ, PYTHONPATH=str(Path(__file__).parents[3]))
    command = [
        sys.executable,
        "-m",
        "jtms",
        "fuzz",
        "--rule",
        "exact",
        "--examples",
        "5",
        "--seed",
        "1",
    ]
    done = subprocess.run(
        command, cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / ".hypothesis").exists()
    done = subprocess.run(
        command + ["--hypothesis-dir", "kept"],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "kept").is_dir() and not (tmp_path / ".hypothesis").exists()


@pytest.mark.parametrize(
    "bad_id, problem",
    [("a,b", "comma"), (" a", "whitespace"), ("a\nb", "control character"), ("", "non-empty")],
)
def test_ids_the_cli_cannot_name_are_refused_in_graph_files(
    folder: Path, bad_id: str, problem: str
) -> None:
    graph = folder / "ids.json"
    graph.write_text(json.dumps({"nodes": [{"id": bad_id, "kind": "evidence"}]}))
    db = folder / "m.db"
    before = dump(db)
    for argv in (["check", str(graph)], ["import", str(graph), "--db", str(db)]):
        code, _, err = run(argv)
        check(code, err, before, db)
        assert code == 2 and problem in err, err


@pytest.mark.parametrize(
    "argv",
    [
        ["enumerate", "--max-n", "1", "--workers", "100000000000000000000"],
        [
            "supports",
            "examples/or_world.json",
            "--claim",
            "claim",
            "--limit",
            "100000000000000000000",
        ],
    ],
)
def test_out_of_range_integers_are_exit_2(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).parents[3])
    code, out, err = run(argv)
    check(code, err)
    assert code == 2 and out == ""
