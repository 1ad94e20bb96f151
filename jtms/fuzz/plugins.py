"""Loading a user's function from ``MODULE:FUNCTION`` (``jtms fuzz --rule``, ``jtms study
--answerer``): one loader, one set of messages.

The current directory is importable, as with ``python -m``, but it is *appended* to
``sys.path``, so a file in it never shadows an installed module. A misspelt name gets the
close names the module does have:

>>> from jtms.fuzz.plugins import load_callable
>>> load_callable("theory.semantics.revision:exact").__name__
'exact'
>>> load_callable("theory.semantics.revision:exakt")
Traceback (most recent call last):
...
theory.model.errors.InputError: 'theory.semantics.revision:exakt': module 'theory.semantics.revision' has no attribute 'exakt' (did you mean exact?)
"""

from __future__ import annotations

import difflib
import importlib
import os
import sys
from collections.abc import Callable
from typing import Any

from theory.model.errors import InputError


def load_callable(spec: str) -> Callable[..., Any]:
    """The callable that ``MODULE:FUNCTION`` names (``FUNCTION`` may be dotted).

    Every failure raises :class:`~theory.model.errors.InputError` with a one-line message that
    names ``spec`` but no command-line flag (the CLI adds that).
    """
    module_name, colon, attribute = spec.partition(":")
    if not colon or not module_name or not attribute:
        raise InputError(
            f"{spec[:200]!r}: expected MODULE:FUNCTION (for instance mypackage.rules:my_rule)"
        )
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.append(cwd)
    try:
        target: Any = importlib.import_module(module_name)
    except Exception as error:  # ImportError, SyntaxError, anything raised at import time
        raise InputError(
            f"{spec[:200]!r}: cannot import module {module_name!r} "
            f"({error.__class__.__name__}: {str(error)[:200]})"
        ) from None
    owner = module_name
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            names = [n for n in dir(target) if not n.startswith("_")]
            close = difflib.get_close_matches(part, names, n=3)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise InputError(
                f"{spec[:200]!r}: module {owner!r} has no attribute {part!r}{hint}"
            ) from None
        owner = f"{owner}.{part}"
    if not callable(target):
        raise InputError(f"{spec[:200]!r}: {attribute!r} is not callable")
    return target


def load_rule(spec: str) -> tuple[str, Callable[..., Any]]:
    """A revision rule: a built-in name (``exact``, ``influence``, ...) or ``MODULE:FUNCTION``
    -> (display name, callable). One loading for ``jtms fuzz --rule`` and ``jtms revise
    --rule``: a counterexample the fuzzer reports replays through the same function.

    >>> load_rule("exact")[0]
    'theory.semantics.revision:exact'
    """
    from theory.semantics.revision import RULES

    if ":" not in spec:
        if spec in RULES:
            return f"theory.semantics.revision:{spec}", RULES[spec]
        raise InputError(
            f"{spec[:200]!r}: expected MODULE:FUNCTION (for instance mypackage.rules:my_rule) "
            f"or a built-in rule ({', '.join(RULES)})"
        )
    return spec, load_callable(spec)


__all__ = ["load_callable", "load_rule"]
