"""Provenance (issue 60): `jtms --version`, the `provenance` object of every `--json` of
enumerate, prove, study, check and fuzz, `--manifest FILE` and `jtms study --transcript DIR`."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import jtms
from jtms.cli import main
from jtms.cli.provenance import package_versions

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"
KEYS = {
    "tool",
    "version",
    "checkout",
    "python",
    "platform",
    "packages",
    "command",
    "arguments",
    "seeds",
}


def _json(capsys, *argv):
    code = main([str(a) for a in argv])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.slow
def test_version_is_printed_with_exit_0_and_matches_pyproject():
    done = subprocess.run(
        [sys.executable, "-m", "jtms", "--version"], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0 and done.stdout.strip() == f"jtms {jtms.__version__}"
    text = (ROOT / "pyproject.toml").read_text()
    assert re.findall(r'^version = "([^"]+)"$', text, re.M) == [jtms.__version__]
    assert jtms.__version__ == "0.2.0"


def _checkout_commit() -> str | None:
    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True)
    return done.stdout.decode().strip() if done.returncode == 0 else None


COMMANDS = [
    (["check", EXAMPLES / "or_world.json", "--json"], 1, {}),
    (["check", EXAMPLES / "or_world.json", "--summary", "--json"], 1, {}),
    (["enumerate", "--max-n", "2", "--json"], 0, {}),
    pytest.param(
        ["enumerate", "--max-n", "1", "--n7-slice", "2", "--seed", "11", "--json"],
        0,
        {"n7_slice": 11},
        marks=pytest.mark.slow,
    ),
    (["prove", "--max-n", "2", "--mutants-n", "0", "--solvers", "cadical", "--json"], 0, {}),
    pytest.param(
        ["fuzz", "--rule", "exact", "--examples", "20", "--seed", "5", "--json"],
        0,
        {"fuzz": 5},
        marks=pytest.mark.slow,
    ),
    pytest.param(
        ["study", "heterogeneous", "--seed", "4", "--seeds", "2", "--json"],
        0,
        {"heterogeneous": [4, 5]},
        marks=pytest.mark.slow,
    ),
]


@pytest.mark.parametrize("argv, code, seeds", COMMANDS, ids=lambda v: str(v)[:40])
def test_every_json_carries_provenance(argv, code, seeds, capsys):
    got, payload = _json(capsys, *argv)
    assert got == code
    origin = payload["provenance"]
    assert set(origin) == KEYS and list(payload)[-1] == "provenance"
    assert origin["tool"] == "jtms-revision" and origin["version"] == jtms.__version__
    assert origin["command"] == argv[0] == origin["arguments"]["command"]
    assert origin["arguments"]["json"] is True and origin["seeds"] == seeds
    assert origin["python"]["version"] == ".".join(map(str, sys.version_info[:3]))
    commit = _checkout_commit()
    if commit is not None:  # run from a checkout (the package's own folder is one)
        assert origin["checkout"]["commit"] == commit
    assert origin["packages"] == package_versions()  # what this process has imported
    json.dumps(origin)  # plain JSON


def test_dirty_means_the_code_differs_from_the_commit(tmp_path):
    from jtms.cli.provenance import checkout_commit

    assert checkout_commit(tmp_path) is None  # not a checkout
    run = lambda *a: subprocess.run(["git", "-C", str(tmp_path), *a], capture_output=True)
    run("init", "-q")
    (tmp_path / "jtms").mkdir()
    (tmp_path / "jtms" / "x.py").write_text("x = 1\n")
    (tmp_path / "results.json").write_text("{}\n")
    run("add", "-A")
    run("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
    head = run("rev-parse", "HEAD").stdout.decode().strip()
    assert checkout_commit(tmp_path) == {"commit": head, "dirty": False}
    (tmp_path / "results.json").write_text('{"rewritten": true}\n')  # a stored result
    assert checkout_commit(tmp_path)["dirty"] is False
    (tmp_path / "jtms" / "x.py").write_text("x = 2\n")  # the code
    assert checkout_commit(tmp_path)["dirty"] is True


def test_packages_are_the_ones_imported():
    assert package_versions(["numpy"]) == {"numpy": __import__("numpy").__version__}
    assert package_versions(["json", "os"]) == {}
    z3 = package_versions(["z3", "pysat"])
    assert set(z3) == {"z3-solver", "python-sat"} and "unknown" not in z3.values()


@pytest.mark.slow
def test_json_is_unchanged_but_for_provenance(capsys):
    _, first = _json(capsys, "study", "heterogeneous", "--json")
    _, second = _json(capsys, "study", "revisionpair", "--json")
    _, third = _json(capsys, "study", "heterogeneous", "--json")
    for payload in (first, second, third):
        payload.pop("provenance")
        for study in payload["studies"]:
            study.pop("seconds")
    assert first == third and first != second


@pytest.mark.slow
def test_manifest_hashes_stdout_and_every_file_written(tmp_path):
    figure = tmp_path / "bars.png"
    listed = tmp_path / "run.manifest.json"
    done = subprocess.run(
        [sys.executable, "-m", "jtms", "study", "heterogeneous", "--json"]
        + ["--plot", str(figure), "--manifest", str(listed)],
        capture_output=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    manifest = json.loads(listed.read_text())
    assert manifest["exit_code"] == 0
    assert manifest["stdout"] == {
        "sha256": hashlib.sha256(done.stdout).hexdigest(),
        "bytes": len(done.stdout),
    }
    assert manifest["files"] == [
        {
            "path": str(figure),
            "sha256": hashlib.sha256(figure.read_bytes()).hexdigest(),
            "bytes": figure.stat().st_size,
        }
    ]
    # the manifest carries the very provenance object of the JSON it vouches for
    assert manifest["provenance"] == json.loads(done.stdout)["provenance"]


def test_manifest_of_a_check_that_finds_something_and_of_a_folder(tmp_path, capsys):
    listed = tmp_path / "m.json"
    assert main(["check", str(EXAMPLES / "or_world.json"), "--manifest", str(listed)]) == 1
    text = capsys.readouterr().out
    manifest = json.loads(listed.read_text())
    assert manifest["exit_code"] == 1 and manifest["files"] == []
    assert manifest["stdout"]["sha256"] == hashlib.sha256(text.encode()).hexdigest()
    folder = tmp_path / "certs"
    argv = ["prove", "--max-n", "2", "--statements", "boundary", "--mutants-n", "0"]
    argv += ["--certify-max-n", "2", "--certificate-dir", str(folder), "--manifest", str(listed)]
    assert main(argv) == 0
    files = json.loads(listed.read_text())["files"]
    written = sorted(p for p in folder.rglob("*") if p.is_file())
    assert written and [f["path"] for f in files] == [str(p) for p in written]
    for entry in files:
        assert entry["sha256"] == hashlib.sha256(Path(entry["path"]).read_bytes()).hexdigest()


def test_bad_manifest_path_is_refused_before_the_run(tmp_path, capsys):
    argv = ["check", str(EXAMPLES / "or_world.json"), "--manifest", str(tmp_path / "no" / "m")]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert "--manifest" in captured.err and captured.out == ""
    same = str(tmp_path / "f.png")
    assert main(["study", "scimap", "--plot", same, "--manifest", same]) == 2
    assert "is also the run's --plot" in capsys.readouterr().err
    assert not (tmp_path / "f.png").exists()


def test_transcript_records_every_answerer_call(tmp_path, capsys, monkeypatch):
    calls = []

    def answer(context_text, question):
        from jtms.studies.readers import careful

        calls.append((context_text, question.id))
        return careful(context_text, question)

    module = type(sys)("transcript_answerer")
    module.answer = answer
    monkeypatch.setitem(sys.modules, "transcript_answerer", module)
    folder = tmp_path / "transcripts"
    argv = ["study", "scimap", "--answerer", "transcript_answerer:answer"]
    assert main([*argv, "--transcript", str(folder)]) == 0
    lines = [json.loads(x) for x in (folder / "scimap.jsonl").read_text().splitlines()]
    assert [(x["context"], x["question"]["id"]) for x in lines] == calls
    assert len(lines) == 3 * 140  # every delayed question under each of the three rules
    first = lines[0]
    assert set(first) == {
        "study",
        "seed",
        "budget",
        "call",
        "rule",
        "question",
        "context",
        "answer",
    }
    assert (first["study"], first["seed"], first["budget"]) == ("scimap", 1, 2000)
    assert [x["call"] for x in lines] == list(range(1, len(lines) + 1))
    # per workspace: its 7 questions under each rule in turn
    assert [x["rule"] for x in lines[:21:7]] == ["exact", "none", "influence"]
    assert {x["rule"] for x in lines[:21]} == {"exact", "none", "influence"}
    assert first["answer"]["verdict"] in {"supported", "withdrawn", "unknown"}
    assert main(["study", "scimap", "--transcript", str(folder)]) == 2
    assert "give --answerer" in capsys.readouterr().err
