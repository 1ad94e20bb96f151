"""argparse value types shared by every command: id lists and range-checked numbers.

A bad value is an argparse usage error (one line, exit 2) before any work starts:

>>> from jtms.cli.arguments import at_least, id_list
>>> id_list("a, b,c")
['a', 'b', 'c']
>>> id_list("path(1,2),edge(2,3)")
['path(1,2)', 'edge(2,3)']
>>> at_least(1)("3")
3
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path

from jtms.memory.limits import ascii_float, ascii_int
from theory.model.errors import InputError
from theory.model.ids import split_ids

DEFAULT_DB = "jtms.db"
LOCATION_HELP = (
    "a file (SQLite) or postgresql://USER@HOST:PORT/DBNAME?memory=NAME "
    f"(default $JTMS_DB, else {DEFAULT_DB})"
)


def default_db() -> str:
    """The memory every command uses without ``--db``: ``$JTMS_DB`` when set (a file or a
    ``postgresql://`` URL), else ``jtms.db``."""
    return os.environ.get("JTMS_DB", "").strip() or DEFAULT_DB


def location(text: str) -> str:
    """A ``--db`` value a command line can use: not SQLite's ``:memory:``, which each process
    creates empty and forgets at exit (``jtms init --db :memory:`` would report a memory
    that no later command finds). The Python API accepts it (:meth:`Memory.create`)."""
    if text.strip() == ":memory:":
        raise argparse.ArgumentTypeError(
            "':memory:' is a database that lives only as long as one command: name a file "
            "or a postgresql:// URL"
        )
    return text


def refuse_empty(args: argparse.Namespace, *names: str) -> None:
    """Refuse an option given as an empty string (``--plot ''``): read as "not given" it
    would silently skip the output, or write into the current folder (``--export ''``)."""
    for name in names:
        value = getattr(args, name, None)
        values = value if isinstance(value, (list, tuple)) else [value]
        if "" in values:
            flag = "--" + name.replace("_", "-")
            raise InputError(f"{flag}: an empty value (name it, or leave {flag} out)")


def path(text: str) -> Path:
    """A file or folder name (``type=`` of an option): ``Path("")`` would be the current
    folder, so an empty name is refused rather than read as ``.``."""
    if not text:
        raise argparse.ArgumentTypeError("an empty value (name a file or folder)")
    return Path(text)


def db_option(
    parser: argparse.ArgumentParser, *, instead_of_file: bool = False, help: str = "the memory"
) -> None:
    """The one ``--db LOCATION`` option of every command, with the one default.

    ``instead_of_file``: the command reads a graph file unless ``--db`` is given (``jtms
    check``, ``jtms diagnose``); then a bare ``--db`` names the default memory.
    """
    if instead_of_file:
        parser.add_argument(
            "--db",
            nargs="?",
            type=location,
            const=default_db(),
            default=None,
            metavar="LOCATION",
            help=f"{help}: {LOCATION_HELP}",
        )
    else:
        parser.add_argument(
            "--db",
            type=location,
            default=default_db(),
            metavar="LOCATION",
            help=f"{help}: {LOCATION_HELP}",
        )


def id_list(text: str) -> list[str]:
    """``ID[,ID...]`` -> the ids, stripped; an empty list or an empty item is refused. Commas
    inside parentheses do not separate (:func:`theory.model.ids.split_ids`), so a Datalog
    atom ``path(1,2)`` is one id."""
    items = split_ids(text)
    if not text.strip() or any(not item for item in items):
        raise argparse.ArgumentTypeError(f"expected ID[,ID...], got {text[:80]!r}")
    return items


def at_least(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """A whole number in ASCII digits (:func:`ascii_int`: not "٣", not "1_000") >=
    ``minimum`` (and <= ``maximum`` when given)."""

    def parse(text: str) -> int:
        value = ascii_int(text.strip())
        if value is None:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text[:40]!r}")
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
        # without a maximum, at most sys.maxsize: larger counts overflow C APIs (islice, ...)
        if value > (sys.maxsize if maximum is None else maximum):
            raise argparse.ArgumentTypeError(
                f"must be <= {sys.maxsize if maximum is None else maximum}, got {text[:40]}"
            )
        return value

    parse.__name__ = f"whole number >= {minimum}"
    return parse


def integer(text: str) -> int:
    """A whole number in ASCII digits (argparse's ``type=int`` would read "٣" as 3)."""
    value = ascii_int(text.strip())
    if value is None:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text[:40]!r}")
    return value


def number(text: str) -> float:
    """A number in ASCII (argparse's ``type=float`` would read "٣" as 3.0)."""
    value = ascii_float(text.strip())
    if value is None:
        raise argparse.ArgumentTypeError(f"expected a number, got {text[:40]!r}")
    return value


def positive_float(text: str) -> float:
    """A finite number > 0 (seconds, tolerances)."""
    value = ascii_float(text.strip())  # ASCII only: float() reads "٣" as 3
    if value is None:
        raise argparse.ArgumentTypeError(f"expected a number, got {text[:40]!r}")
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text[:40]}")
    return value


JSON_KEYS = "JSON keys (--json):"
"""How a command's help names the top-level keys of its ``--json`` output (one line)."""


def documented(
    parser: argparse.ArgumentParser,
    *,
    examples: Sequence[str],
    keys: Sequence[str] | None,
    description: str | None = None,
) -> argparse.ArgumentParser:
    """``parser`` with the help every command has (tests/jtms/cli/test_cli_help.py walks them all):
    a description, its examples and, for a command with ``--json``, the top-level keys of
    its JSON output, on one line after :data:`JSON_KEYS`. A description given as one
    paragraph is wrapped here, since the help is then printed as written."""
    if description is not None:
        parser.description = description
    if parser.formatter_class is argparse.HelpFormatter and parser.description:
        paragraphs = parser.description.split("\n\n")
        parser.description = "\n\n".join(textwrap.fill(" ".join(p.split()), 88) for p in paragraphs)
    parts = [parser.epilog] if parser.epilog else []
    if examples:
        parts.append("examples:\n" + "\n".join(f"  {example}" for example in examples))
    if keys is not None:
        parts.append(f"{JSON_KEYS} {', '.join(keys)}")
    parser.epilog = "\n\n".join(parts)
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    return parser


__all__ = [
    "JSON_KEYS",
    "documented",
    "DEFAULT_DB",
    "LOCATION_HELP",
    "at_least",
    "db_option",
    "default_db",
    "location",
    "path",
    "refuse_empty",
    "id_list",
    "integer",
    "number",
    "positive_float",
]
