"""The one error type for bad input: it names the file, the node and the problem."""

from __future__ import annotations

MAX_SHOWN = 80  # characters of a value (an id, a file name) shown in a message
MAX_PROBLEM = 400  # characters of the problem itself


def one_line(text: str) -> str:
    """``text`` as one line: every line break Python knows (``\\n``, ``\\r``, ``\\v``,
    ``\\f``, the file, group and record separators, NEL, U+2028, U+2029) and the blanks
    around it become one space, so a message read from a driver or a file never spans lines.

    >>> one_line("server closed the connection\\n\\tThis probably means\\u2028x")
    'server closed the connection This probably means x'
    """
    lines = text.splitlines()
    if len(lines) <= 1:
        return text.rstrip("\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029")
    return " ".join(part.strip() for part in lines if part.strip())


def shorten(text: str, limit: int = MAX_SHOWN) -> str:
    """``text`` cut to ``limit`` characters, saying how much was cut.

    >>> shorten("x" * 1000, 10)
    'xxxxxxxxxx... (1000 characters)'
    """
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


class InputError(ValueError):
    """Bad input (malformed file, unknown or duplicate id, wrong kind, ...).

    The message is one line: ``FILE: node 'ID': PROBLEM`` with the parts that apply; long
    values are cut (:func:`shorten`), so a 1 MB id is not echoed whole. The CLI turns it
    into exit code 2.
    """

    def __init__(self, problem: str, *, source: str | None = None, node: str | None = None):
        self.problem = problem
        self.source = source
        self.node = node
        parts = []
        if source:
            parts.append(shorten(str(source), 2 * MAX_SHOWN))
        if node is not None:
            parts.append(f"node {shorten(repr(node))}")
        parts.append(shorten(str(problem), MAX_PROBLEM))
        super().__init__(one_line(": ".join(parts)))

    def with_source(self, source: str) -> "InputError":
        """The same error, attributed to ``source`` (a file path) if it had none."""
        if self.source:
            return self
        return type(self)(self.problem, source=source, node=self.node)  # a GraphError stays one


class GraphError(InputError):
    """A support structure that violates the graph format of docs/design.md section 4."""


class Undecided(RuntimeError):
    """A search spent its budget without an answer (an NP-hard query on a hard instance:
    :meth:`theory.solver.justifications.JustificationEnumerator.relevance_witness` with
    ``conflicts``). The caller reports the question as open rather than waiting on it."""

    def __init__(self, question: str, conflicts: int):
        self.question = question
        self.conflicts = conflicts
        super().__init__(f"{question}: no answer within {conflicts} conflicts")


def count_argument(value: object, what: str, *, optional: bool = True) -> int | None:
    """``value`` if it is a whole number of at least 0 (or None when ``optional``), else an
    :class:`InputError` naming ``what``: the counts and budgets of the public functions.

    >>> count_argument(-1, "limit")
    Traceback (most recent call last):
    ...
    theory.model.errors.InputError: limit must be a whole number of at least 0 (or None), got -1
    """
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        shown = shorten(repr(value)) if isinstance(value, int) else type(value).__name__
        none = " (or None)" if optional else ""
        raise InputError(f"{what} must be a whole number of at least 0{none}, got {shown}")
    return value
