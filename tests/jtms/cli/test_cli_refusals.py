"""Command lines and graph files that a fuzzing run of the CLI found accepted, half-done or
silently changed (2026-12-05): each is now refused with exit 2 and one line, before anything
is written, and the same document is valid or invalid for every command that reads it."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from jtms.cli import main
from jtms.memory.memory import Memory
from tests.cli_helpers import refused
from theory.model.errors import InputError


@pytest.fixture
def location(memory_location: Callable[[], str]) -> Iterator[str]:
    """A memory on one backend: evidence e1, e2 and claim c1 <- e1, c2 <- e2."""
    where = memory_location()
    with Memory.create(where, durability="off") as memory:
        memory.add_evidence("e1")
        memory.add_evidence("e2")
        memory.add_evidence("calc", expression="2*3", value="7")  # a wrong calculation
        memory.add_claim("c1", [["e1"]])
        memory.add_claim("c2", [["e2"]])
    yield where


def last_event(location: str) -> int:
    with Memory.open(location) as memory:
        return memory.last_event


# --- a bad option of a write command writes nothing --------------------------------------------


def test_a_bad_limit_is_refused_before_the_write(
    location: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with Memory.open(location) as memory:
        audit = memory.audit(["e2"], reason="r").audit_id
    before = last_event(location)
    for argv in (
        ["audit", "--invalidate", "e1", "--reason", "r", "--limit", "0"],
        ["reinstate", str(audit), "--limit", "-1"],
        ["review", "--limit", "0"],
    ):
        refused(capsys, [*argv, "--db", location], "--limit")
    assert last_event(location) == before
    with Memory.open(location) as memory:
        assert {"e1", "c1"} <= set(memory.active_ids())


@pytest.mark.parametrize(
    "argv, option",
    [
        (["audit", "--invalidate", "e1", "--invalidate", "e2", "--reason", "r"], "--invalidate"),
        (["audit", "--invalidate", "e1", "--reason", "a", "--reason", "b"], "--reason"),
        (["add-nogood", "n1", "--nodes", "c1", "--nodes", "c2"], "--nodes"),
        (["state", "--ids", "e1", "--ids", "e2"], "--ids"),
    ],
)
def test_an_option_given_twice_is_refused(
    location: str, capsys: pytest.CaptureFixture[str], argv: list[str], option: str
) -> None:
    """argparse kept the last value: ``--invalidate e1 --invalidate e2`` audited e2 alone."""
    before = last_event(location)
    refused(capsys, [*argv, "--db", location], f"{option}: given more than once")
    assert last_event(location) == before


def test_the_db_option_twice_and_options_meant_to_repeat(
    location: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    refused(capsys, ["state", "--db", location, "--db", str(tmp_path / "other.db")], "--db")
    # `add-claim --because` is one justification per occurrence: repeating it stays valid
    capsys.readouterr()
    argv = ["add-claim", "c3", "--because", "e1", "--because", "e2", "--db", location, "--json"]
    assert main(argv) == 0
    with Memory.open(location) as memory:  # two alternatives: one audit leaves c3 standing
        memory.audit(["e1"], reason="r")
        assert "c3" in memory.active_ids()
        memory.audit(["e2"], reason="r")
        assert "c3" not in memory.active_ids()


# --- output files ------------------------------------------------------------------------------


def test_export_never_replaces_the_memory_it_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "m.db"
    with Memory.create(str(db), durability="off") as memory:
        memory.add_evidence("e1")
    link = tmp_path / "link.db"
    link.symlink_to(db)
    before = db.read_bytes()
    for target in (db, link, Path(str(db) + "-wal"), tmp_path / "." / "m.db"):
        refused(capsys, ["export", "--db", str(db), "-o", str(target)], "which this command reads")
    assert db.read_bytes() == before
    with Memory.open(str(db)) as memory:
        assert memory.active_ids() == {"e1"}


def test_an_output_name_ending_in_a_slash_is_a_folder(
    location: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    refused(capsys, ["export", "--db", location, "-o", f"{tmp_path / 'out'}/"], "ends with a slash")
    assert not (tmp_path / "out").exists()


def test_a_new_output_file_follows_the_umask(
    location: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    previous = os.umask(0o027)
    try:
        assert main(["export", "--db", location, "-o", str(tmp_path / "new.jsonl")]) == 0
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "new.jsonl").stat().st_mode) == 0o640


# --- locations and long runs -------------------------------------------------------------------


def test_an_in_memory_database_is_refused_on_the_command_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    refused(capsys, ["init", "--db", ":memory:"], "':memory:'")
    monkeypatch.setenv("JTMS_DB", ":memory:")
    refused(capsys, ["state"], "':memory:'")


@pytest.mark.slow
def test_a_family_too_large_to_estimate_is_refused_at_once(tmp_path: Path) -> None:
    """The cost estimate of 8/3/4 first planned every class of size 3 under 241,920
    symmetries (over a minute); without --yes it is refused before that."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "jtms", "enumerate", "--max-n", "0", "--graphs"]
        + ["--graph-evidence", "8", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 2, done.stderr
    assert "--yes" in done.stderr and "241,920 symmetries" in done.stderr
    assert time.perf_counter() - started < 30


@pytest.fixture
def no_enumeration(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any enumeration started fails the test: a refusal must come first."""
    import enumerations.runs

    def ran(*args: object, **kwargs: object) -> None:
        raise AssertionError("the enumeration ran")

    monkeypatch.setattr(enumerations.runs, "run_flat", ran)
    monkeypatch.setattr(enumerations.runs, "run_n7_slice", ran)


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, magic",
    [("f.pdf", b"%PDF"), ("f.svg", b"<?xml"), ("f.PNG", b"\x89PNG\r\n\x1a\n")],
)
def test_the_plot_format_follows_the_extension(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, magic: bytes
) -> None:
    """`enumerate --plot x.pdf` wrote PNG bytes into x.pdf."""
    figure = tmp_path / name
    assert main(["enumerate", "--max-n", "0", "--json", "--plot", str(figure)]) == 0
    assert figure.read_bytes().startswith(magic)


@pytest.mark.parametrize("name", ["f.jpg", "figure", "-"])
def test_a_plot_without_a_figure_extension_is_refused_before_any_run(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    no_enumeration: None,
    name: str,
) -> None:
    """A format matplotlib does not write here, or no extension at all (standard output
    too), is one line naming the extensions, before any enumeration and with nothing
    written."""
    monkeypatch.chdir(tmp_path)
    refused(capsys, ["enumerate", "--max-n", "6", "--plot", name], ".png, .svg, .pdf")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--n7-slice", "100000000"], "all 7,828,354 n = 7 rows"),  # hours, without asking
        (["--n7-slice", "20001"], "20,001 of the 7,828,354 n = 7 rows"),
        (["--n7-slice", "40001", "--workers", "2"], "on 2 worker(s)"),
        (["--n7-slice", "100000000", "--json", "--plot", "p.png"], "pass --yes"),
    ],
)
def test_a_long_n7_slice_needs_yes(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    no_enumeration: None,
    argv: list[str],
    message: str,
) -> None:
    """`--n7-slice` with a huge ROWS ran every n = 7 row as its own shard (hours); a slice
    estimated above five minutes a worker is now refused before anything runs."""
    monkeypatch.chdir(tmp_path)
    err = refused(capsys, ["enumerate", "--max-n", "0", *argv], message)
    assert "--yes" in err
    assert list(tmp_path.iterdir()) == []


def test_the_slice_bound_is_five_minutes_a_worker() -> None:
    import argparse

    from jtms.cli.commands.enumerate import _check_slice_size

    def check(rows: int, workers: int = 1, yes: bool = False) -> None:
        _check_slice_size(argparse.Namespace(n7_slice=rows, workers=workers, yes=yes))

    check(20_000)
    check(40_000, workers=2)
    check(10**12, yes=True)
    for rows, workers in ((20_001, 1), (40_001, 2)):
        with pytest.raises(InputError, match="pass --yes"):
            check(rows, workers)


@pytest.mark.slow
def test_yes_is_taken_with_n7_slice(capsys: pytest.CaptureFixture[str]) -> None:
    """`--yes` was refused unless --graphs came with it; it now lets a long slice start."""
    assert main(["enumerate", "--max-n", "0", "--n7-slice", "2", "--yes", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["n7_slice"]["rows_run"] == 2
    refused(capsys, ["enumerate", "--max-n", "0", "--yes"], "--yes needs --graphs or --n7-slice")


# --- graph documents: one verdict for every command --------------------------------------------

VALID_NODES = [{"id": "a", "kind": "evidence"}, {"id": "c", "kind": "claim"}]
VALID_JUSTIFICATIONS = [{"claim": "c", "antecedents": ["a"]}]

BAD_DOCUMENTS = {
    "key twice at the top": (
        '{"nodes": [{"id": "a", "kind": "evidence"}, {"id": "c", "kind": "claim"}], '
        '"justifications": [{"claim": "c", "antecedents": ["a"]}], "justifications": []}',
        "'justifications' twice",
    ),
    "key twice in a node": (
        '{"nodes": [{"id": "a", "kind": "evidence", "kind": "claim"}], "justifications": []}',
        "'kind' twice",
    ),
    "no antecedents": (
        json.dumps({"nodes": VALID_NODES, "justifications": [{"claim": "c"}]}),
        "needs 'antecedents'",
    ),
    "NUL in a text": (
        json.dumps(
            {
                "nodes": [{"id": "a", "kind": "evidence", "text": "x\x00y"}, VALID_NODES[1]],
                "justifications": VALID_JUSTIFICATIONS,
            }
        ),
        "NUL",
    ),
    "calculation on a claim": (
        json.dumps(
            {
                "nodes": [VALID_NODES[0], {**VALID_NODES[1], "expression": "1", "value": "1"}],
                "justifications": VALID_JUSTIFICATIONS,
            }
        ),
        "only evidence records a calculation",
    ),
    "expression without value": (
        json.dumps(
            {
                "nodes": [{**VALID_NODES[0], "expression": "1+1"}, VALID_NODES[1]],
                "justifications": VALID_JUSTIFICATIONS,
            }
        ),
        "needs both",
    ),
    "expression outside the grammar": (
        json.dumps(
            {
                "nodes": [{**VALID_NODES[0], "expression": "1+", "value": "2"}, VALID_NODES[1]],
                "justifications": VALID_JUSTIFICATIONS,
            }
        ),
        "expression '1+'",
    ),
    "expression not a string": (
        json.dumps(
            {
                "nodes": [{**VALID_NODES[0], "expression": 2, "value": "2"}, VALID_NODES[1]],
                "justifications": VALID_JUSTIFICATIONS,
            }
        ),
        "must be a string",
    ),
}


def _commands(path: str, db: str) -> list[list[str]]:
    return [
        ["check", path],
        ["supports", path, "--claim", "c"],
        ["revise", path, "--audit", "a"],
        ["diagnose", path],
        ["import", path, "--db", db],
    ]


@pytest.mark.parametrize("name", sorted(BAD_DOCUMENTS))
def test_every_command_refuses_the_same_documents(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, message = BAD_DOCUMENTS[name]
    path = tmp_path / "g.json"
    path.write_text(text, encoding="utf-8")
    db = str(tmp_path / "m.db")
    with Memory.create(db, durability="off"):
        pass
    for argv in _commands(str(path), db):
        refused(capsys, argv, message)
    with Memory.open(db) as memory:
        assert memory.active_ids() == set()


def test_every_command_accepts_a_document_with_a_calculation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "g.json"
    nodes = [{**VALID_NODES[0], "expression": "2*3", "value": "6", "text": "ok"}, VALID_NODES[1]]
    path.write_text(json.dumps({"nodes": nodes, "justifications": VALID_JUSTIFICATIONS}))
    db = str(tmp_path / "m.db")
    with Memory.create(db, durability="off"):
        pass
    for argv in _commands(str(path), db):
        capsys.readouterr()
        assert main([*argv, "--json"]) in (0, 1), argv
    with Memory.open(db) as memory:
        assert memory.active_ids() == {"a", "c"}


def test_a_drawing_under_json_is_one_json_document(
    location: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for drawing in ("dot", "mermaid"):
        capsys.readouterr()
        assert main(["explain", "c1", "--format", drawing, "--json", "--db", location]) == 0
        shown = json.loads(capsys.readouterr().out)
        assert shown["id"] == "c1" and shown["format"] == drawing and "e1" in shown["drawing"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv, message",
    [
        (["enumerate", "--max-n", "0", "--plot", ""], "--plot: an empty value"),
        (["enumerate", "--max-n", "0", "--graphs", "--graph-out", ""], "--graph-out: an empty"),
        (["enumerate", "--merge", ""], "--merge: an empty value"),
        (["prove", "--max-n", "1", "--mutants-n", "0", "--export", ""], "--export: an empty"),
        (["study", "diagnosis", "--plot", ""], "--plot: an empty value"),
        (["study", "diagnosis", "--answerer", ""], "--answerer: an empty value"),
        (["enumerate", "--n7", "--plan-parts", "2", "--rows", "٠:١٠"], "whole numbers"),
        (["enumerate", "--n7", "--plan-parts", "2", "--rows", "1_0:2_0"], "whole numbers"),
    ],
)
def test_empty_names_and_foreign_digits_are_refused(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    message: str,
) -> None:
    """An empty name was read as "not given" (the output silently skipped) or as the current
    folder (`prove --export ''` wrote there); `--rows` read other scripts' digits."""
    monkeypatch.chdir(tmp_path)
    refused(capsys, argv, message)
    assert list(tmp_path.iterdir()) == []
