"""mypy with the project's own settings (``[tool.mypy]`` in pyproject.toml:
``disallow_untyped_defs`` on theory, jtms, enumerations and proofs) finds nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_mypy_is_clean_with_the_project_settings(tmp_path: Path) -> None:
    pytest.importorskip("mypy", reason="mypy comes with the test extra: pip install -e '.[test]'")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy-cache")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
