"""Rules and backends that misbehave, found by a fuzzing pass of `jtms fuzz` (2026-12-05):
a rule that returns what are not ids, exits, prints or changes its graph is reported as a
counterexample of kind ``error`` (exit 1) with a JSON report intact; a backend that does so is
one line, exit 2; options that the chosen mode ignores are refused; Ctrl-C is one line."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from jtms.cli import main

PLUGINS = textwrap.dedent("""
    import sys
    from theory import active_state
    from theory.semantics.revision import exact

    def ints(structure, audit):
        return set(exact(structure, audit)) | {1}

    def exits(structure, audit):
        sys.exit(0)

    def prints(structure, audit):
        print("debug")
        return exact(structure, audit)

    def mutates(structure, audit):
        retired = exact(structure, audit)
        for claim in sorted(structure.claims):
            if claim not in retired:
                structure.nodes.pop(claim)
                break
        return set(retired) | {"made-up"} if structure.claims else retired

    def interrupted(structure, audit):
        raise KeyboardInterrupt

    def backend_ints(structure, blocked):
        return set(active_state(structure, blocked=blocked)) | {1}

    def backend_exits(structure, blocked):
        sys.exit(0)

    def backend_prints(structure, blocked):
        print("debug")
        return active_state(structure, blocked=blocked)

    def backend_clears(structure, blocked):
        active = active_state(structure, blocked=blocked)
        structure.nodes.clear()
        return active
""")


@pytest.fixture
def plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "plugins_under_test.py").write_text(PLUGINS)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def _fuzz(
    capsys: pytest.CaptureFixture[str], *argv: str, examples: int = 60
) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["fuzz", *argv, "--examples", str(examples), "--seed", "1", "--json"])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("rule", ["ints", "exits"])
def test_a_rule_that_returns_no_ids_or_exits_is_an_error_counterexample(
    plugins: Path, capsys: pytest.CaptureFixture[str], rule: str
) -> None:
    code, out, _ = _fuzz(capsys, "--rule", f"plugins_under_test:{rule}")
    report = json.loads(out)
    assert code == 1 and report["counterexample"]["error"], report["counterexample"]


def test_a_rule_that_prints_leaves_the_json_report_whole(
    plugins: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _fuzz(capsys, "--rule", "plugins_under_test:prints")
    assert code == 0 and json.loads(out)["counterexample"] is None
    assert "debug" in err


@pytest.mark.slow
def test_a_rule_that_changes_its_graph_does_not_change_the_report(
    plugins: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _fuzz(capsys, "--rule", "plugins_under_test:mutates", examples=100)
    found = json.loads(out)["counterexample"]
    # the id it makes up is an error naming it (not an over-revision), on the whole graph
    assert code == 1 and "'made-up', which is not a node of the graph" in found["error"]
    assert len(found["graph"]["nodes"]) == found["size"]["nodes"]


@pytest.mark.parametrize("backend, message", [("ints", "not ids"), ("exits", "SystemExit")])
def test_a_backend_that_returns_no_ids_or_exits_is_one_line(
    plugins: Path, capsys: pytest.CaptureFixture[str], backend: str, message: str
) -> None:
    code, out, err = _fuzz(
        capsys, "--differential", "--backend", f"plugins_under_test:backend_{backend}"
    )
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err, err


@pytest.mark.parametrize("backend", ["prints", "clears"])
def test_a_backend_that_prints_or_changes_its_graph_is_checked_as_any_other(
    plugins: Path, capsys: pytest.CaptureFixture[str], backend: str
) -> None:
    code, out, _ = _fuzz(
        capsys, "--differential", "--backend", f"plugins_under_test:backend_{backend}"
    )
    json.loads(out)  # stdout is the report alone
    assert code == 0


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--rule", "exact", "--backend", "nosuchmodule:f"], "--backend needs --differential"),
        (["--differential", "--max-evidence", "2", "--max-claims", "2"], "apply to --rule only"),
        (["--rule", "exact", "--out", ""], "empty file name"),
    ],
)
def test_options_the_mode_ignores_are_refused(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = _fuzz(capsys, *argv)
    assert code == 2 and err.count("\n") == 1 and message in err, err


def test_ctrl_c_is_one_line(plugins: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _fuzz(capsys, "--rule", "plugins_under_test:interrupted")
    assert code == 130 and err.strip() == "jtms: interrupted"


@pytest.mark.slow
def test_out_to_dev_stdout_keeps_what_the_shell_redirected(tmp_path: Path) -> None:
    """``--out /dev/stdout > report.txt`` replaced report.txt with the graph alone."""
    report = tmp_path / "report.txt"
    with open(report, "w") as stdout:
        done = subprocess.run(
            [sys.executable, "-m", "jtms", "fuzz", "--rule", "influence", "--examples", "300"]
            + ["--seed", "7", "--json", "--out", "/dev/stdout"],
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert done.returncode == 1, done.stderr
    text = report.read_text()
    assert '"counterexample"' in text and '"nodes"' in text
