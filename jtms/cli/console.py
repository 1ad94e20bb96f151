"""The ``jtms`` console script: argument parsing, command discovery and exit codes.

Exit codes (docs/design.md section 4): 0 ok, 1 a check found a violation, 2 bad input or usage.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence
from typing import NoReturn

from theory.errors import MAX_PROBLEM, InputError, shorten

import jtms.cli.commands
from jtms.cli.exit_codes import ExitCode

# Kept for callers that imported the old names; new code uses ExitCode.
EXIT_OK, EXIT_VIOLATION, EXIT_BAD_INPUT = ExitCode.OK, ExitCode.VIOLATION, ExitCode.BAD_INPUT

_DESCRIPTION = """\
Justification-aware revision of persistent agent memory.

When evidence is invalidated, `exact` revision withdraws exactly the claims left with no
intact justification; `influence` retires everything downstream (over-revision) and `none`
only the audited items (under-revision). These commands check, enumerate, prove and fuzz
that boundary, and run exact revision on a persistent memory.

Every command takes --json for machine output. Exit codes: 0 ok, 1 a check found a
violation, 2 bad input or usage.
"""


class _Parser(argparse.ArgumentParser):
    """argparse exits 2 on usage errors already; keep its message to one line."""

    def error(self, message: str) -> NoReturn:  # pragma: no cover - exercised via CLI tests
        message = shorten(message.replace("\n", " "), MAX_PROBLEM)  # a 1 MB argument, cut
        self.exit(ExitCode.BAD_INPUT, f"jtms: error: {message} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="jtms",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    subparsers.required = True
    modules = [importlib.import_module(f"jtms.cli.commands.{info.name}")
               for info in pkgutil.iter_modules(jtms.cli.commands.__path__)]
    # ORDER places a module's commands in --help (checking first, studies last)
    for module in sorted(modules, key=lambda m: (getattr(m, "ORDER", 100), m.__name__)):
        register = getattr(module, "register", None)
        if register is not None:
            register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except InputError as error:
        print(f"jtms: error: {error}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    except BrokenPipeError:  # pragma: no cover - `jtms ... | head`
        return ExitCode.OK


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
