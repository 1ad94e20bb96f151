"""The fast loop's budget: a test over JTMS_FAST_BUDGET_S CPU seconds that is not marked slow
fails there."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

CONFTEST = Path(__file__).resolve().parents[1] / "conftest.py"
SLEEPER = """
import time

import pytest


def test_quick():
    pass


{marker}
def test_spins():
    end = time.process_time() + 0.6
    while time.process_time() < end:
        pass
"""


def run(folder: Path, marker: str, *arguments: str) -> subprocess.CompletedProcess[str]:
    shutil.copy(CONFTEST, folder / "conftest.py")
    (folder / "test_sleeper.py").write_text(SLEEPER.format(marker=marker))
    environment = {**os.environ, "JTMS_FAST_BUDGET_S": "0.3"}
    environment.pop("CI", None)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *arguments, str(folder)],
        capture_output=True,
        text=True,
        env=environment,
        cwd=folder,
        timeout=120,
    )


def test_an_unmarked_slow_test_fails_the_fast_loop(tmp_path):
    result = run(tmp_path, "", "-m", "not slow")
    assert result.returncode == 1, result.stdout
    assert "mark it @pytest.mark.slow" in result.stdout
    assert "1 failed, 1 passed" in result.stdout


def test_a_marked_test_is_left_out_and_the_full_run_has_no_budget(tmp_path):
    marked = run(tmp_path, "@pytest.mark.slow", "-m", "not slow")
    assert marked.returncode == 0 and "1 passed, 1 deselected" in marked.stdout, marked.stdout
    full = run(tmp_path, "")
    assert full.returncode == 0 and "2 passed" in full.stdout, full.stdout
