"""The ``jtms`` console script: argument parsing, command discovery and exit codes.

Exit codes (docs/design.md section 4): 0 ok, 1 a check found a violation, 2 bad input or usage.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import pkgutil
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import jtms
import jtms.cli.commands
from jtms.cli.exit_codes import ExitCode
from theory.model.errors import MAX_PROBLEM, InputError, one_line, shorten

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


class _StoreOnce(argparse.Action):
    """argparse's ``store``, refusing an option given twice in one command line.

    Plain ``store`` keeps the last value silently: ``audit --invalidate a --invalidate b``
    would audit ``b`` alone and commit. Options meant to repeat say so (``append``)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, **kwargs)  # type: ignore[arg-type]
        self._namespace: argparse.Namespace | None = None  # the parse that last set it

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        if self.option_strings and self._namespace is namespace:
            parser.error(
                f"argument {'/'.join(self.option_strings)}: given more than once "
                "(give it once; a list is one comma-separated value)"
            )
        self._namespace = namespace
        setattr(namespace, self.dest, values)


class _Parser(argparse.ArgumentParser):
    """argparse exits 2 on usage errors already; keep its message to one line. An option
    given twice is an error (:class:`_StoreOnce`), not the last one silently kept."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.register("action", None, _StoreOnce)
        self.register("action", "store", _StoreOnce)

    def error(self, message: str) -> NoReturn:  # pragma: no cover - exercised via CLI tests
        message = shorten(message.replace("\n", " "), MAX_PROBLEM)  # a 1 MB argument, cut
        self.exit(ExitCode.BAD_INPUT, f"jtms: error: {message} (see `{self.prog} --help`)\n")


COMMAND_MODULES: dict[str, str] = {
    "check": "theorycmds",
    "supports": "theorycmds",
    "revise": "theorycmds",
    "enumerate": "enumerate",
    "prove": "prove",
    "fuzz": "fuzz",
    "diagnose": "diagnose",
    "add-nogood": "diagnose",
    "init": "memory",
    "upgrade": "memory",
    "import": "memory",
    "add-evidence": "memory",
    "add-claim": "memory",
    "audit": "memory",
    "reinstate": "memory",
    "history": "memory",
    "explain": "memory",
    "context": "memory",
    "state": "memory",
    "review": "memory",
    "search": "forgetting",
    "purge": "forgetting",
    "drop": "forgetting",
    "memories": "memories",
    "export": "memories",
    "import-memory": "memories",
    "serve": "serve",
    "study": "study",
}
"""The module of :mod:`jtms.cli.commands` that registers each command. A command line that
starts with a command's name imports only that module, so a cold ``jtms check`` or ``jtms
audit`` does not import every other command's dependencies (a large part of a one-shot
process); ``jtms --help`` and anything else register them all. tests/jtms/cli/test_cli.py checks this
table against what registering every module gives."""


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``jtms`` parser: with a known ``command``, only the module that registers it
    (:data:`COMMAND_MODULES`); otherwise every command module."""
    parser = _Parser(
        prog="jtms",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--version", action="version", version=f"jtms {jtms.__version__}", help="print the version"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    subparsers.required = True
    if command in COMMAND_MODULES:
        names = [COMMAND_MODULES[command]]
    else:
        names = [info.name for info in pkgutil.iter_modules(jtms.cli.commands.__path__)]
    modules = [importlib.import_module(f"jtms.cli.commands.{name}") for name in names]
    # ORDER places a module's commands in --help (checking first, studies last)
    for module in sorted(modules, key=lambda m: (getattr(m, "ORDER", 100), m.__name__)):
        register = getattr(module, "register", None)
        if register is not None:
            register(subparsers)
    return parser


def argument_problem(argv: Sequence[str]) -> str | None:
    """Why the command line cannot be read (None when it can): an argument that is not
    valid UTF-8 (Python keeps undecodable bytes as lone surrogates) or holds a NUL."""
    for position, argument in enumerate(argv, 1):
        if "\x00" in argument:
            return f"argument {position} contains a NUL character"
        try:
            argument.encode("utf-8")
        except UnicodeEncodeError:
            try:  # undecodable bytes of the command line: show them as bytes
                shown = argument.encode("utf-8", "surrogateescape").decode(
                    "utf-8", "backslashreplace"
                )
            except UnicodeEncodeError:  # a lone surrogate from a caller: show its code point
                shown = argument.encode("utf-8", "backslashreplace").decode("utf-8")
            return f"argument {position} is not valid UTF-8: {shorten(shown, 60)!r}"
        except TypeError:  # pragma: no cover - a caller passing non-strings
            return f"argument {position} is not a string"
    return None


def _say(line: str) -> None:
    """One line on stderr, whatever the message holds (a driver's message can span lines:
    :func:`theory.model.errors.one_line`); a closed or full stderr is not a second error."""
    try:
        if sys.stderr is not None:
            print(one_line(line), file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def _discard_stdout() -> None:
    """After standard output failed: point it at /dev/null, so that what is still buffered
    is not written (and fails) again when the interpreter exits."""
    try:
        descriptor = sys.stdout.fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, descriptor)
        os.close(devnull)
    except (AttributeError, OSError, ValueError):
        pass  # not a real file (a test's capture): nothing left to fail at exit


def quiet_library_logging(command: str | None) -> None:
    """Keep the libraries' own log records (psycopg's "error ignored terminating <Pipeline>"
    after a lost connection, rdflib's parser warnings) off stderr: with no handler
    configured, Python's last-resort handler prints them there, beside the one line the CLI
    prints for the same fault. ``jtms serve`` is left alone: a server's log is wanted."""
    root = logging.getLogger()
    if command != "serve" and not root.handlers:
        root.addHandler(logging.NullHandler())


def _flush_stdout() -> None:
    if sys.stdout is not None:
        sys.stdout.flush()


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every failure is one line on stderr and an exit code (never a
    traceback): bad input, a full or closed standard output, an unwritable file."""
    if sys.stdout is None:
        _say("jtms: error: standard output is closed (redirect it, e.g. > /dev/null)")
        return ExitCode.BAD_INPUT
    # jtms does no linear algebra: numpy's OpenBLAS would otherwise start a pool of threads
    # on import that spin on the other cores (a cold `jtms audit` used about 100 ms more CPU
    # than its wall time on the 2-core VM: 0.31 against 0.21 s with one thread)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    arguments = sys.argv[1:] if argv is None else list(argv)
    quiet_library_logging(arguments[0] if arguments else None)
    problem = argument_problem(arguments)
    if problem is not None:
        _say(f"jtms: error: {problem}")
        return ExitCode.BAD_INPUT
    try:
        try:
            parser = build_parser(arguments[0] if arguments else None)
            args = parser.parse_args(argv)
        except SystemExit:
            _flush_stdout()  # --help on a full standard output
            raise
        if getattr(args, "manifest", None):
            return _run_with_manifest(args)
        code = int(args.func(args))
        _flush_stdout()
        return code
    except InputError as error:
        _say(f"jtms: error: {error}")
        return ExitCode.BAD_INPUT
    except BrokenPipeError:  # `jtms ... | head`
        _discard_stdout()
        return ExitCode.OK
    except OSError as error:  # standard output full (ENOSPC), gone (EIO), ...
        _discard_stdout()
        where = f" ({shorten(str(error.filename), 80)})" if error.filename else ""
        _say(
            f"jtms: error: cannot write the output{where}: {error.strerror or type(error).__name__}"
        )
        return ExitCode.BAD_INPUT
    except KeyboardInterrupt:  # Ctrl-C: one line, the shell's code for SIGINT (128 + 2)
        _discard_stdout()
        _say("jtms: interrupted")
        return INTERRUPTED


def _run_with_manifest(args: argparse.Namespace) -> int:
    """Run the command with its standard output hashed, then write ``--manifest`` (after a
    run that ended 0 or 1: a run refused for bad input wrote nothing to vouch for)."""
    import time

    from jtms.cli.output_file import check_output
    from jtms.cli.provenance import FILE_OPTIONS, HashingStdout, manifest, write_manifest

    check_output(args.manifest, "--manifest", what="the manifest")
    for key, option in FILE_OPTIONS.items():
        other = getattr(args, key, None)
        if other and os.path.realpath(other) == os.path.realpath(args.manifest):
            raise InputError(f"--manifest {args.manifest!r} is also the run's {option}")
    since = time.time()
    real = sys.stdout
    hashed = HashingStdout(real)
    sys.stdout = hashed  # type: ignore[assignment]
    try:
        code = int(args.func(args))
        _flush_stdout()
    finally:
        sys.stdout = real
    if code in (ExitCode.OK, ExitCode.VIOLATION):
        write_manifest(args.manifest, manifest(args, hashed, since, code))
    return code


INTERRUPTED = 130
"""The exit code after Ctrl-C (128 + SIGINT), as shells report a process it stopped."""


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
