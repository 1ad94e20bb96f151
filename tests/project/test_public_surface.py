"""The curated public surface: each package's ``__all__`` is exactly its public names, and the
examples in the docstrings of the functions users call first run (doctests)."""

from __future__ import annotations
import __future__

import doctest
import importlib
import types

import pytest

SURFACES = [
    "theory",
    "theory.testing.strategies",
    "jtms",
    "jtms.fuzz",
    "jtms.studies",
    "proofs",
    "enumerations",
]


def _public_names(module: types.ModuleType) -> set[str]:
    """Names without an underscore that the module defines or re-exports from this project
    (imports of helpers such as ``dataclass`` or ``Iterable`` are not public names)."""
    package = hasattr(module, "__path__")
    names = set()
    for name, value in vars(module).items():
        if name.startswith("_") or isinstance(value, (types.ModuleType, __future__._Feature)):
            continue
        origin = getattr(value, "__module__", None)
        home = origin is not None and (
            origin == module.__name__ or (package and origin.startswith(module.__name__ + "."))
        )
        if callable(value) and origin is not None and not home:
            continue  # an imported helper (dataclass, Literal, SupportStructure in strategies ...)
        names.add(name)
    return names


@pytest.mark.parametrize("name", SURFACES)
def test_all_is_exactly_the_public_names(name):
    module = importlib.import_module(name)
    exported = module.__all__
    assert len(exported) == len(set(exported)), "duplicate names in __all__"
    for item in exported:  # every export resolves (lazy ones too)
        getattr(module, item)
    assert _public_names(module) == set(exported)


def test_the_first_calls_are_exported():
    import jtms
    import theory

    for name in (
        "check_structure",
        "minimal_justifications",
        "exact",
        "influence",
        "none",
        "counting",
        "load_graph",
        "SupportStructure",
        "active_state",
    ):
        assert name in theory.__all__
    assert "Memory" in jtms.__all__


# Modules whose docstrings carry the runnable examples of the functions users call first.
DOCTESTED = [
    "theory.model.canonical",
    "theory.model.structure",
    "theory.safety.check",
    "theory.solver.justifications",
    "theory.solver.label_kernel",
    "theory.solver.cone_kernel",
    "theory.solver.exchange",
    "theory.solver.cone_cnf",
    "theory.solver.options",
    "theory.solver.portfolio",
    "theory.semantics.fixpoint",
    "theory.semantics.revision",
    "theory.io.graphfile",
    "theory.testing.truthtable",
    "theory.model.optional",
    "jtms",
    "jtms.cli.arguments",
    "jtms.cli.exit_codes",
    "jtms.fuzz.plugins",
    "jtms.fuzz.runner",
    "theory.testing.census",
    "jtms.cli.progress",
    "jtms.studies",
    "jtms.studies.rules",
    "jtms.studies.readers",
    "jtms.studies.rendering",
    "jtms.studies.scoring",
    "jtms.studies.endpoints",
    "jtms.studies.embedding",
]


@pytest.mark.slow
@pytest.mark.parametrize("name", DOCTESTED)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    tests = finder.find(module, name)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    examples = 0
    for test in tests:
        examples += len(test.examples)
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0
    assert examples > 0, f"{name} has no docstring examples"
