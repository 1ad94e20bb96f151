"""Docstrings are reference, not tuning logs: no timings, tuning seeds, before/after figures
or commit hashes in the docstrings of the library (what was measured belongs in
docs/benchmarks.md and the commit messages)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("theory", "jtms", "enumerations", "proofs")

LOG = re.compile(
    r"\b\d+(?:\.\d+)?\s?(?:ms|µs|us)\b"  # a timing in milliseconds or microseconds
    r"|\b\d+(?:\.\d+)? s\b"  # a timing in seconds (0.4 s)
    r"|\b\d+(?:\.\d+)?\s?(?:->|→)\s?\d+(?:\.\d+)?\b"  # a before/after figure
    r"|\b(?:at|on|with) seeds? \d"
    r"|\bcommit [0-9a-f]{7,40}\b|\((?:[0-9a-f]{7}|[0-9a-f]{40})\)"  # a commit named
)


def docstrings(tree: ast.Module) -> list[tuple[int, str]]:
    """Every docstring: of the module, its classes and functions, and the bare strings that
    document a name (the string after an assignment, as ``ENTRY_PER_CLAUSE = ...``)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            for statement in node.body:
                if (
                    isinstance(statement, ast.Expr)
                    and isinstance(statement.value, ast.Constant)
                    and isinstance(statement.value.value, str)
                ):
                    found.append((statement.lineno, statement.value.value))
    return found


SETTING = re.compile(r"(?:every|else|after|within|default|timeout)\s*$|--$")
"""Words before a figure that make it a setting (a default, a poll interval), not a log."""


def tuning_logs(source: str) -> list[str]:
    """``"LINE: excerpt"`` for each docstring of ``source`` that reads as a tuning log."""
    problems = []
    for line, text in docstrings(ast.parse(source)):
        match = next(
            (
                m
                for m in LOG.finditer(text)
                if not SETTING.search(text[max(0, m.start() - 20) : m.start()])
            ),
            None,
        )
        if match:
            start = max(0, match.start() - 30)
            problems.append(f"{line}: …{text[start : match.end() + 30]!r}…")
    return problems


@pytest.mark.slow
def test_no_docstring_is_a_tuning_log():
    problems = [
        f"{path.relative_to(ROOT)}:{problem}"
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        for problem in tuning_logs(path.read_text(encoding="utf-8"))
    ]
    assert problems == []


def test_the_check_sees_a_planted_tuning_log():
    planted = [
        '"""Fast: 0.44 -> 0.25 s on a million claims."""',
        'def f():\n    """The kernel (12 ms at 100k ids)."""',
        'class C:\n    """Calibrated on seeds 0-5 (3 runs)."""',
        'LIMIT = 5\n"""Past this the kernel pays: about 40 s cold."""',
        'def g():\n    """Since commit 1f71605 the labels come first."""',
    ]
    assert all(tuning_logs(source) for source in planted)
    assert tuning_logs('"""Evidence e0 and claims c1, c2; the rule ``a -> b``."""') == []
