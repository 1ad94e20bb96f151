"""Without coqc the Coq tests say so: a warning, the skip reason and a closing summary line
outside CI, a collection error under CI (run in a subprocess whose PATH has no coqc)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run_without_coqc(tmp_path: Path, ci: bool) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["PATH"] = str(tmp_path)  # an empty folder: no coqc, whatever the machine has
    env["PYTHONPATH"] = str(ROOT)
    if ci:
        env["CI"] = "1"
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            str(ROOT / "tests" / "proofs" / "test_proofs_coq.py"),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.slow
@pytest.mark.parametrize("ci", [False, True])
def test_missing_coqc_is_visible(tmp_path, ci):
    done = _run_without_coqc(tmp_path, ci)
    out = done.stdout + done.stderr
    if ci:
        assert done.returncode != 0 and "coqc is not installed" in out
    else:
        assert done.returncode in (0, 5)  # 5: pytest collected nothing else to run
        assert "PytestWarning: coqc is not installed" in out  # the warnings summary
        assert "SKIPPED [1]" in out  # the reason, under the default -ra
        assert "WARNING: coqc is not installed, so the Coq proofs were not checked" in out
