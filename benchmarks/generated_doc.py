"""The generated part of a document: the text between two marker lines that a script
renders from stored JSON (``benchmarks/enumerations_doc.py``, ``benchmarks/studies_doc.py``).

Such a script rewrites the part in place, or with ``--check`` exits 1 when the document
differs from what it would write.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def load(path: Path) -> dict[str, Any]:
    """A stored JSON document."""
    return json.loads(path.read_text())


def spliced(doc: str, part: str, begin: str, end: str) -> str:
    """``doc`` with its generated part (from the line ``begin`` through the line ``end``)
    replaced by ``part``."""
    start, stop = doc.index(begin), doc.index(end) + len(end) + 1
    return doc[:start] + part + doc[stop:]


def main(
    argv: list[str] | None,
    docstring: str | None,
    doc_path: Path,
    splice: Callable[[str, str], str],
    generated: Callable[[], str],
    check_help: str,
    stale: str,
) -> int:
    """The command line of a generating script (described by the first paragraph of its
    ``docstring``): rewrite ``doc_path``'s generated part, or with ``--check`` print
    ``stale`` and return 1 when it is not what ``generated`` gives."""
    parser = argparse.ArgumentParser(description=(docstring or "").split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help=check_help)
    args = parser.parse_args(argv)
    doc = doc_path.read_text()
    new = splice(doc, generated())
    if args.check:
        if new != doc:
            print(stale, file=sys.stderr)
            return 1
        return 0
    doc_path.write_text(new)
    return 0
