"""Rendering at the edge: JSON for machines, rich tables for people."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from theory.canonical import sorted_ids, sorted_sets  # noqa: F401  (re-exported: one JSON order)


def print_json(payload: Any, compact: bool = False) -> None:
    """Write ``payload`` as JSON: indented for reading, or on one line when ``compact``.

    Large outputs should be compact: the C encoder only serves the unindented form.
    """
    if compact:
        sys.stdout.write(json.dumps(payload, separators=(",", ":")))
    else:
        sys.stdout.write(json.dumps(payload, indent=2))
    sys.stdout.write("\n")


def console() -> Console:
    return Console(highlight=False, soft_wrap=False)


def table(title: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> Table:
    result = Table(title=title, title_justify="left", show_lines=False)
    for column in columns:
        result.add_column(column)
    for row in rows:
        result.add_row(*(str(cell) for cell in row))
    return result


def format_set(ids: Iterable[str]) -> str:
    return "{" + ", ".join(sorted(ids)) + "}"
