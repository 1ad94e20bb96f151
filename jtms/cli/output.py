"""Rendering at the edge: JSON for machines, rich tables for people."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from theory.model.canonical import sorted_ids, sorted_sets  # noqa: F401  (re-exported: one JSON order)
from theory.model.errors import InputError, shorten


def print_json(payload: Any, compact: bool = False) -> None:
    """Write ``payload`` as JSON: indented for reading, or on one line when ``compact``.

    Large outputs should be compact: the C encoder only serves the unindented form.
    """
    if compact:
        sys.stdout.write(json.dumps(payload, separators=(",", ":")))
    else:
        sys.stdout.write(json.dumps(payload, indent=2))
    sys.stdout.write("\n")


def print_json_stream(
    head: dict[str, Any],
    key: str,
    items: Iterable[Any],
    tail: Callable[[], dict[str, Any]],
    compact: bool = False,
) -> None:
    """Write the object ``{**head, key: [*items], **tail()}`` as :func:`print_json` would,
    character for character, but one item at a time: a list of many large items (a check's
    claims, each with its violations) never sits in memory whole, as a payload or as its
    text. ``tail`` is called after the last item (for what is known only then: seconds)."""
    write = sys.stdout.write
    if compact:
        encode = json.JSONEncoder(separators=(",", ":")).encode
        write("{" + "".join(f"{encode(k)}:{encode(v)}," for k, v in head.items()))
        write(encode(key) + ":[")
        for k, item in enumerate(items):
            write(("," if k else "") + encode(item))
        write("]" + "".join(f",{encode(k)}:{encode(v)}" for k, v in tail().items()) + "}\n")
        return

    def dump(value: Any, depth: int) -> str:  # nested at ``depth``: JSON text has no raw newline
        return json.dumps(value, indent=2).replace("\n", "\n" + "  " * depth)

    write("{\n" + "".join(f"  {json.dumps(k)}: {dump(v, 1)},\n" for k, v in head.items()))
    write(f"  {json.dumps(key)}: [")
    empty = True
    for item in items:
        write(("\n" if empty else ",\n") + "    " + dump(item, 2))
        empty = False
    write("]" if empty else "\n  ]")
    write("".join(f",\n  {json.dumps(k)}: {dump(v, 1)}" for k, v in tail().items()) + "\n}\n")


def writable_file(path: str | os.PathLike[str], option: str) -> Path:
    """``path`` when a file can be written there, else :class:`InputError` (exit 2).

    Commands call it before any work, so a bad output path never costs a long run.
    """
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise InputError(f"{option} {shorten(str(path))!r}: is a directory")
    if not folder.is_dir():
        raise InputError(
            f"{option} {shorten(str(path))!r}: no such directory {shorten(str(folder))!r}"
        )
    if not os.access(folder, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise InputError(f"{option} {shorten(str(path))!r}: not writable")
    return target


def writable_folder(path: str | os.PathLike[str], option: str) -> Path:
    """``path`` when it is a writable folder or can be created as one (its parent exists and
    is writable), else :class:`InputError` (exit 2)."""
    target = Path(path)
    if target.exists():
        if not target.is_dir():
            raise InputError(f"{option} {shorten(str(path))!r}: not a directory")
        if not os.access(target, os.W_OK):
            raise InputError(f"{option} {shorten(str(path))!r}: not writable")
        return target
    writable_file(target, option)  # the folder is created like a file in its parent
    return target


def console() -> Console:
    """A console that prints text literally: ids, reasons and texts come from users, so
    rich markup (``[/x]``, ``[bold]``) and emoji codes (``:smile:``) are never interpreted.
    Style a fixed word with ``rich.text.Text.assemble(("word", "red"), ...)`` or ``style=``.
    """
    return Console(highlight=False, soft_wrap=False, markup=False, emoji=False)


def table(title: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> Table:
    result = Table(title=title, title_justify="left", show_lines=False)
    for column in columns:
        result.add_column(column)
    for row in rows:
        result.add_row(*(str(cell) for cell in row))
    return result


def format_set(ids: Iterable[str]) -> str:
    return "{" + ", ".join(sorted(ids)) + "}"
