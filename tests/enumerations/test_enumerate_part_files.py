"""`jtms enumerate`: malformed, inconsistent or special part files are one line, exit 2, and
the file is left as it was (DESIGN.md section 5)."""

from __future__ import annotations

import json
import os

import pytest

from jtms.cli import main

GRAPHS = [
    "--max-n", "0", "--graphs", "--graph-evidence", "2", "--graph-claims", "2",
    "--graph-justifications", "2",
]  # fmt: skip
N7 = ["--n7", "--rows", "0:3"]


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    """A complete graph part and a complete n = 7 part of rows 0:3."""
    folder = tmp_path_factory.mktemp("parts")
    graph, n7 = folder / "g.json", folder / "n7.json"
    assert main(["enumerate", *GRAPHS, "--graph-out", str(graph), "--json"]) == 0
    assert main(["enumerate", *N7, "--out", str(n7), "--json"]) == 0
    return json.loads(graph.read_text()), json.loads(n7.read_text())


def _refused(capsys, path, text, argv):
    path.write_text(text)
    code = main(["enumerate", *argv])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert str(path.name) in err, err
    assert path.read_text() == text  # nothing stored is changed
    return err


def _edit(data, dotted, value):
    data = json.loads(json.dumps(data))
    *folders, key = dotted.split(".")
    target = data
    for f in folders:
        target = target[f]
    target[key] = value
    return json.dumps(data)


GRAPH_EDITS = [
    ("shards", 1e999),
    ("shards", 3.7),
    ("shards", "3"),
    ("shards", 4),  # the plan has 3
    ("shards", 1),
    ("shards", 10**30),
    ("family", [2, 2, 2]),
    ("family.evidence", 2.5),
    ("done", [[0, 2.9]]),
    ("done", [[False, True]]),
    ("done", [[0, 2], [1, 3]]),  # overlapping
    ("done", [[0, 3, 5]]),
    ("version", True),
    ("sessions", "BIG"),  # a 5000-digit integer
    ("graphs.violations", [1]),
    ("graphs.violations", {"alternative_support": 1, "redundant_influence": 1, "x": 1}),
    ("graphs.classes", -1),
    ("graphs.unsafe_claims", 800),
    ("graphs.classes", 2.5),
]
N7_EDITS = [
    ("functions_checked", 1e999),
    ("done", [[0, 2.5]]),
    ("rows", [0, 3.5]),
    ("rows", [0, 3, 5]),
    ("version", True),
    ("unique_minimal", 100),
    ("active", -1),
    ("functions_checked", 5),  # rows 0:3 hold 6 functions
    ("done", [[0, 2]]),  # the tally is of 0:3
    ("counterexamples", [1]),
]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("field", "value"), GRAPH_EDITS, ids=[f"{k}={v!r}"[:40] for k, v in GRAPH_EDITS]
)
def test_malformed_graph_part_is_refused(capsys, tmp_path, good, field, value):
    path = tmp_path / "x.json"
    text = _edit(good[0], field, value)
    if value == "BIG":
        text = json.dumps(good[0]).replace('"sessions": 1', '"sessions": ' + "9" * 5000)
    err = _refused(capsys, path, text, [*GRAPHS, "--graph-out", str(path)])
    assert "part file" in err
    _refused(capsys, path, text, ["--merge", str(path)])


@pytest.mark.slow
@pytest.mark.parametrize(("field", "value"), N7_EDITS, ids=[f"{k}={v!r}"[:40] for k, v in N7_EDITS])
def test_malformed_n7_part_is_refused(capsys, tmp_path, good, field, value):
    path = tmp_path / "x.json"
    text = _edit(good[1], field, value)
    err = _refused(capsys, path, text, ["--merge", str(path)])
    assert "malformed part file" in err or "version" in err
    _refused(capsys, path, text, [*N7, "--out", str(path)])


def test_deeply_nested_part_file(capsys, tmp_path):
    path = tmp_path / "deep.json"
    text = "[" * 100_000 + "]" * 100_000
    assert "malformed part file" in _refused(capsys, path, text, ["--merge", str(path)])
    assert "malformed part file" in _refused(
        capsys, path, text, [*GRAPHS, "--graph-out", str(path)]
    )


def test_device_is_not_a_part_file(capsys):
    assert main(["enumerate", "--merge", os.devnull]) == 2
    err = capsys.readouterr().err
    assert "regular file" in err and len(err.strip().splitlines()) == 1


def test_graph_out_symlink_is_written_through(capsys, tmp_path):
    target, link = tmp_path / "target.json", tmp_path / "link.json"
    link.symlink_to(target)
    assert main(["enumerate", *GRAPHS, "--graph-out", str(link), "--json"]) == 0
    capsys.readouterr()
    assert link.is_symlink() and json.loads(target.read_text())["complete"]


def test_graph_out_fifo_is_refused(capsys, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert main(["enumerate", *GRAPHS, "--graph-out", str(fifo)]) == 2
    err = capsys.readouterr().err
    assert "--graph-out" in err and len(err.strip().splitlines()) == 1
    assert main(["enumerate", *GRAPHS, "--graph-out", os.devnull]) == 2
    assert "--graph-out" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["--graph-evidence", "200"], "--graph-evidence"),
        (["--graph-claims", "10"], "--graph-claims"),
        (["--graph-justifications", "99999999999999999999"], "--graph-justifications"),
        (["--graph-justifications", "1000000000"], "--graph-justifications"),
        (
            ["--graph-evidence", "1", "--graph-claims", "1", "--graph-justifications", "3"],
            "--graph-justifications",
        ),
    ],
)
def test_graph_family_is_capped(capsys, argv, flag):
    assert main(["enumerate", "--max-n", "0", "--graphs", *argv]) == 2
    err = capsys.readouterr().err
    assert flag in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.slow
def test_a_part_file_from_before_the_labelled_counts_resumes_without_shares(capsys, tmp_path):
    # written by an earlier version: no labelled_* keys; it still resumes, and the shares it
    # cannot know are null (and "not counted" in the table), never a share of part of the run
    part = tmp_path / "old.json"
    argv = [*GRAPHS[:-1], "3", "--graph-out", str(part)]
    assert main(["enumerate", *argv, "--graph-max-shards", "1", "--json"]) == 0
    capsys.readouterr()
    data = json.loads(part.read_text())
    for key in ("labelled_all_safe_graphs", "labelled_active_claims", "labelled_safe_claims"):
        del data["graphs"][key]
    part.write_text(json.dumps(data))
    assert main(["enumerate", *argv, "--json"]) == 0
    g = json.loads(capsys.readouterr().out)["graphs"]
    assert g["complete"] and g["counts_verified"] and g["graphs"] == 697
    assert g["labelled_share_all_safe"] is None and g["labelled_share_safe_claims"] is None
    fresh = tmp_path / "new.json"
    assert main(["enumerate", *GRAPHS[:-1], "3", "--graph-out", str(fresh), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["graphs"]["labelled_share_all_safe"] == 0.408895
    assert main(["enumerate", *argv]) == 0
    assert "not counted" in capsys.readouterr().out
