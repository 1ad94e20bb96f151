"""`jtms enumerate`: JSON contract, exit codes, table, plot."""

from __future__ import annotations

import json

import pytest

from jtms.cli import main

pytestmark = pytest.mark.slow

KEYS = ["n", "monotone_functions", "unique_minimal", "influence_exact", "theorem_holds", "seconds"]


def _json(capsys, *argv):
    code = main(["enumerate", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_json_contract(capsys):
    code, payload = _json(capsys, "--max-n", "4")
    assert code == 0
    results = payload["results"]
    assert [r["n"] for r in results] == [0, 1, 2, 3, 4]
    assert [r["monotone_functions"] for r in results] == [2, 3, 6, 20, 168]
    for r in results:
        assert list(r)[: len(KEYS)] == KEYS
        assert (
            r["theorem_holds"] is True
            and r["unique_minimal"] == r["influence_exact"] == 2 ** r["n"]
        )


def test_mutant_makes_the_run_fail_with_counterexamples(capsys):
    code, payload = _json(capsys, "--max-n", "3", "--mutant", "forgetful")
    assert code == 1
    last = payload["results"][-1]
    assert last["theorem_holds"] is False and last["counterexamples"]
    assert payload["engine"]["mutant"] == "forgetful"


def test_bad_usage_exits_2(capsys):
    assert main(["enumerate", "--max-n", "9"]) == 2
    assert "--max-n" in capsys.readouterr().err
    assert main(["enumerate", "--workers", "0"]) == 2
    assert main(["enumerate", "--graph-claims", "2"]) == 2  # needs --graphs
    assert main(["enumerate", "--seed", "-1", "--n7-slice", "1"]) == 2
    assert (
        main(
            [
                "enumerate",
                "--max-n",
                "0",
                "--graphs",
                "--graph-evidence",
                "4",
                "--graph-claims",
                "4",
            ]
        )
        == 2
    )  # 2.9e9 labelled graphs: a long run needs --yes
    err = capsys.readouterr().err
    assert "labelled graphs" in err and "7,292,875 classes; estimated" in err and "--yes" in err
    assert main(["enumerate", "--yes"]) == 2  # needs --graphs or --n7-slice
    assert main(["enumerate", "--graphs", "--graph-max-shards", "3"]) == 2  # needs --graph-out


def test_table_and_plot(capsys, tmp_path):
    png = tmp_path / "report.png"
    assert main(["enumerate", "--max-n", "3", "--plot", str(png)]) == 0
    text = capsys.readouterr().out
    assert "flat universes" in text and "holds" in text
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_graphs_section_and_workers(capsys):
    code, payload = _json(
        capsys,
        "--max-n",
        "2",
        "--workers",
        "2",
        "--graphs",
        "--graph-evidence",
        "2",
        "--graph-claims",
        "2",
        "--graph-justifications",
        "2",
    )
    assert code == 0
    g = payload["graphs"]
    assert g["verdicts_agree"] and g["graphs"] == 137 and g["family"]["claims"] == 2
    assert payload["engine"] == {"kind": "processes", "workers": 2, "mutant": None}


def test_graph_part_file_resumes(capsys, tmp_path):
    out = str(tmp_path / "g.json")
    argv = (
        "--max-n",
        "0",
        "--graphs",
        "--graph-evidence",
        "2",
        "--graph-claims",
        "2",
        "--graph-justifications",
        "3",
        "--graph-out",
        out,
    )
    code, payload = _json(capsys, *argv, "--graph-max-shards", "1")
    g = payload["graphs"]
    assert code == 0 and not g["complete"] and g["shards_done"] == 1 and not g["counts_verified"]
    code, payload = _json(capsys, *argv)
    g = payload["graphs"]
    assert code == 0 and g["complete"] and g["sessions"] == 2
    assert g["counts_verified"] and g["classes"] == g["burnside_classes"] == 211
    assert g["graphs"] == g["labelled_count"] == 697 and g["verdicts_agree"]
    # another family into the same file is refused, with one line and exit 2
    assert main(["enumerate", *argv[:-3], "2", "--graph-out", out]) == 2
    assert "another run" in capsys.readouterr().err


def test_loop_keeping_mutant_fails_the_graph_check(capsys):
    code, payload = _json(
        capsys,
        "--max-n",
        "1",
        "--graphs",
        "--graph-evidence",
        "2",
        "--graph-claims",
        "2",
        "--graph-justifications",
        "3",
        "--mutant",
        "loop-keeping",
    )
    assert code == 1
    assert payload["graphs"]["disagreements"] > 0 and payload["graphs"]["examples"]
    assert all(r["theorem_holds"] for r in payload["results"])  # flat universes have no loops


def test_n7_slice_section(capsys):
    code, payload = _json(capsys, "--max-n", "0", "--n7-slice", "2", "--seed", "3")
    assert code == 0
    s = payload["n7_slice"]
    assert s["rows_run"] == 2 and s["theorem_holds"] and s["estimated_core_hours"] > 0


def test_progress_bar_renders_without_a_terminal():
    from jtms.cli.commands.enumerate import _progress

    with _progress(True) as update:
        for done in (0, 5, 10):
            update("n = 6", done, 10)
    with _progress(False) as update:
        assert update is None


def test_a_bad_dask_address_is_one_line(capsys):
    """``notaurl`` raised dask's ValueError; an unreachable scheduler read, after 30 s, as
    "cannot write the output: OSError"."""
    import pytest

    pytest.importorskip("dask.distributed")
    for address, message in (
        ("notaurl", "not a scheduler address"),
        ("tcp://127.0.0.1:1", "no scheduler answered"),
    ):
        capsys.readouterr()
        assert main(["enumerate", "--max-n", "2", "--dask", "--dask-address", address]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--dask-address" in err and message in err, err


@pytest.mark.slow
def test_graph_max_shards_is_judged_by_the_capped_run(capsys, tmp_path):
    # 4/4/4 takes an estimated 1.3 core-hours whole (refused without --yes in
    # test_bad_usage_exits_2); one shard of it is about a second and starts without --yes
    argv = ["--max-n", "0", "--graphs", "--graph-evidence", "4", "--graph-claims", "4"]
    out = str(tmp_path / "g.json")
    code = main(["enumerate", *argv, "--graph-out", out, "--graph-max-shards", "1", "--json"])
    captured = capsys.readouterr()
    assert code == 0 and json.loads(captured.out)["graphs"]["shards_done"] == 1
    assert "this session (1 shard(s), at most 2,000 classes)" in captured.err


def test_graph_max_shards_still_refuses_a_long_capped_run(capsys, tmp_path, monkeypatch):
    # the estimate of a whole family, made cheap: a second per class, so even one shard of
    # 2,000 classes is a long run and is refused naming --graph-max-shards
    from enumerations import graphparts
    from enumerations.graphs import GraphFamily

    def estimate(family, exact=None, **checks):
        return graphparts.CostEstimate(family, 7_292_875, 2_852_247_169, 1, 1, 1.0, 1)

    monkeypatch.setattr(graphparts, "estimate_cost", estimate)
    assert GraphFamily(4, 4, 4).labelled_count() == 2_852_247_169
    argv = ["enumerate", "--max-n", "0", "--graphs", "--graph-evidence", "4"]
    argv += ["--graph-claims", "4", "--graph-out", str(tmp_path / "g.json")]
    assert main([*argv, "--graph-max-shards", "1"]) == 2
    err = capsys.readouterr().err
    assert "--graph-max-shards 1 of graph family 4/4/4 is a long run" in err
    assert not (tmp_path / "g.json").exists()
