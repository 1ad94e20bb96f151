"""The code is lint-clean and formatted by ruff, with the settings of ``pyproject.toml``
(``[tool.ruff]``): ``ruff check`` and ``ruff format --check`` over the repository."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    if shutil.which("ruff") is None:
        try:
            import ruff  # noqa: F401
        except ImportError:
            pytest.skip("ruff is not installed (pip install -e '.[test]')")
        command = [sys.executable, "-m", "ruff", *args]
    else:
        command = ["ruff", *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_ruff_check_finds_nothing():
    result = _ruff("check", "--output-format", "concise", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_changes_nothing():
    result = _ruff("format", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr
