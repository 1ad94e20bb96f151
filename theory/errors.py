"""The one error type for bad input: it names the file, the node and the problem."""

from __future__ import annotations


class InputError(ValueError):
    """Bad input (malformed file, unknown or duplicate id, wrong kind, ...).

    The message is one line: ``FILE: node 'ID': PROBLEM`` with the parts that apply.
    The CLI turns it into exit code 2.
    """

    def __init__(self, problem: str, *, source: str | None = None, node: str | None = None):
        self.problem = problem
        self.source = source
        self.node = node
        parts = []
        if source:
            parts.append(str(source))
        if node is not None:
            parts.append(f"node {node!r}")
        parts.append(problem)
        super().__init__(": ".join(parts).replace("\n", " "))

    def with_source(self, source: str) -> "InputError":
        """The same error, attributed to ``source`` (a file path) if it had none."""
        if self.source:
            return self
        return type(self)(self.problem, source=source, node=self.node)  # a GraphError stays one


class GraphError(InputError):
    """A support structure that violates the graph format of DESIGN.md section 4."""
