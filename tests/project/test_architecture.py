"""The direction of imports (docs/design.md section 3), read from the source with ``ast``.

Every import counts, at module level or inside a function, except those for type annotations
only (under ``if TYPE_CHECKING:``). A planted upward import (``jtms.store`` importing
``jtms.memory``, ``theory`` importing ``jtms``) or a loop between two modules fails here, and
so does a new import of an underscore name from another module of the library, and a package
or module group missing from the design page's table.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("theory", "enumerations", "proofs", "jtms")

# layer of each group; a group may import its own group and any group of a lower layer
LAYERS: dict[str, int] = {
    "theory": 0,
    "enumerations": 1,
    "proofs": 1,
    "jtms.memory.limits": 1,  # the limits of every entry point: a leaf over theory only
    "jtms.engine": 1,  # the incremental engine of the memory: over theory only
    "jtms.store": 2,
    "jtms.calc": 2,
    "jtms.memory": 3,
    "jtms.views": 4,
    "jtms.fuzz": 4,
    "jtms.interchange": 4,
    "jtms.studies": 5,
    "jtms.serve": 5,
    "jtms.cli": 6,
    "jtms": 7,  # jtms/__init__.py (lazy exports) and jtms/__main__.py
}
# theory's rooms, bottom to top (docs/design.md section 3): a room imports its own modules and
# those of lower rooms only
THEORY_ROOMS: dict[str, int] = {
    "model": 0,
    "io": 1,
    "solver": 1,
    "semantics": 2,
    "safety": 3,
    "testing": 4,
}
# the only groups allowed to import enumerations/ and proofs/ (docs/design.md section 3)
USES_ENUMERATIONS_AND_PROOFS = {"jtms.cli", "enumerations", "proofs"}


def group_of(module: str) -> str:
    if module in LAYERS:
        return module
    parts = module.split(".")
    if parts[0] == "jtms" and len(parts) > 1 and f"jtms.{parts[1]}" in LAYERS:
        return f"jtms.{parts[1]}"
    return parts[0]


def module_files() -> Iterator[tuple[str, Path]]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            yield ".".join(parts), path


@functools.cache
def tree_of(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


@functools.cache
def imports_of(path: Path) -> list[str]:
    """Project modules imported by the file, outside ``TYPE_CHECKING`` blocks."""
    tree = tree_of(path)
    typing_only: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            typing_only.update(id(n) for n in ast.walk(node))
    found = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        found += [n for n in names if n.split(".")[0] in PACKAGES]
    return found


MODULES = dict(module_files())


def project_imports(module: str) -> set[str]:
    """The project modules (not names inside them) that ``module`` imports."""
    return {
        name if name in MODULES else name.rsplit(".", 1)[0] for name in imports_of(MODULES[module])
    } & set(MODULES) - {module}


def layer_problems(graph: dict[str, set[str]]) -> list[str]:
    problems = []
    for module, targets in sorted(graph.items()):
        mine = group_of(module)
        for target in sorted(targets):
            theirs = group_of(target)
            if theirs == mine or module.startswith(target + ".") or target == "jtms":
                continue  # its own group, its own package's __init__, jtms' lazy exports
            if theirs in ("enumerations", "proofs") and mine not in USES_ENUMERATIONS_AND_PROOFS:
                problems.append(f"{module} imports {target} (only the CLI may)")
            elif LAYERS[theirs] >= LAYERS[mine]:
                problems.append(f"{module} ({mine}) imports {target} ({theirs}), not below it")
    return problems


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (theory's Tarjan)."""
    from theory.model.graphalgo import tarjan

    names = sorted(set(graph) | {t for targets in graph.values() for t in targets})
    number = {name: n for n, name in enumerate(names)}
    components = tarjan(range(len(names)), lambda n: [number[t] for t in graph.get(names[n], ())])
    return [sorted(names[n] for n in c) for c in components if len(c) > 1]


@functools.cache
def import_graph() -> dict[str, set[str]]:
    # a package's __init__ re-exporting its modules is not a loop with them
    return {m: {t for t in project_imports(m) if not t.startswith(m + ".")} for m in MODULES}


@pytest.mark.slow
def test_imports_go_down_the_layers():
    assert layer_problems(import_graph()) == []


def room_of(module: str) -> str | None:
    parts = module.split(".")
    return (
        parts[1] if parts[0] == "theory" and len(parts) > 2 and parts[1] in THEORY_ROOMS else None
    )


def room_problems(graph: dict[str, set[str]]) -> list[str]:
    """Imports between theory's rooms that do not go down :data:`THEORY_ROOMS`."""
    problems = []
    for module, targets in sorted(graph.items()):
        mine = room_of(module)
        for target in sorted(targets):
            theirs = room_of(target)
            if mine is None or theirs is None or theirs == mine:
                continue
            if THEORY_ROOMS[theirs] >= THEORY_ROOMS[mine]:
                problems.append(f"{module} ({mine}) imports {target} ({theirs}), not below it")
    return problems


def test_theory_rooms_import_down_their_layers():
    assert {p.parent.name for p in (ROOT / "theory").glob("*/__init__.py")} == set(THEORY_ROOMS)
    assert room_problems(import_graph()) == []
    planted = {
        **import_graph(),
        "theory.model.structure": {"theory.semantics.fixpoint"},
        "theory.solver.cnf": {"theory.io.graphfile"},
    }
    assert len(room_problems(planted)) == 2


@pytest.mark.slow
def test_no_two_modules_import_each_other():
    assert cycles(import_graph()) == []


def test_the_check_sees_a_planted_upward_import_and_a_loop():
    graph = import_graph()
    planted = {
        **graph,
        "jtms.store.sqlite": graph["jtms.store.sqlite"] | {"jtms.memory.memory"},
        "theory.semantics.fixpoint": graph["theory.semantics.fixpoint"] | {"jtms.cli.console"},
    }
    problems = layer_problems(planted)
    assert any(p.startswith("jtms.store.sqlite") for p in problems)
    assert any(p.startswith("theory.semantics.fixpoint") for p in problems)
    looped = {
        **graph,
        "theory.model.structure": graph["theory.model.structure"] | {"theory.semantics.revision"},
    }
    assert any("theory.model.structure" in c for c in cycles(looped))


@pytest.mark.parametrize(
    "module", ["jtms.memory.memory", "jtms.cli.console", "theory.semantics.revision"]
)
def test_the_graph_is_read_from_the_source(module):
    assert module in MODULES and project_imports(module)


# --- underscore names stay inside their module ----------------------------------------------
#
# A name another module needs is public in its own module (or moves where it is used). These
# are the underscore imports left, in files being changed elsewhere now; the list only shrinks.
UNDERSCORE_IMPORTS_LEFT: frozenset[str] = frozenset()


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def underscore_imports(module: str, tree: ast.Module) -> list[str]:
    """``"MODULE: OTHER._name"`` for each underscore name of another project module that the
    source imports (``from OTHER import _name``) or reads from an imported module
    (``OTHER._name`` after ``import OTHER`` or ``from PACKAGE import OTHER``)."""
    found = []
    modules: dict[str, str] = {}  # local name -> project module it names
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] not in PACKAGES:
                continue
            for alias in node.names:
                if private(alias.name) and node.module != module:
                    found.append(f"{module}: {node.module}.{alias.name}")
                elif f"{node.module}.{alias.name}" in MODULES:
                    modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in PACKAGES and alias.asname:
                    modules[alias.asname] = alias.name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and private(node.attr)
            and isinstance(node.value, ast.Name)
            and modules.get(node.value.id, module) != module
        ):
            found.append(f"{module}: {modules[node.value.id]}.{node.attr}")
    return sorted(set(found))


@functools.cache
def all_underscore_imports() -> frozenset[str]:
    return frozenset(
        found
        for module, path in MODULES.items()
        for found in underscore_imports(module, tree_of(path))
    )


@pytest.mark.slow
def test_no_new_underscore_imports_across_modules():
    assert all_underscore_imports() - UNDERSCORE_IMPORTS_LEFT == set()


@pytest.mark.slow
def test_the_list_of_underscore_imports_left_only_shrinks():
    assert UNDERSCORE_IMPORTS_LEFT - all_underscore_imports() == set()


def test_the_check_sees_a_planted_underscore_import():
    planted = (
        "from theory.solver.cone_kernel import ConeOracle, _derive\n"
        "from theory.solver import label_kernel\n"
        "import proofs.counting as counting\n"
        "def f():\n"
        "    return label_kernel._minimize, counting._private, _own\n"
    )
    assert underscore_imports("theory.solver.exchange", ast.parse(planted)) == [
        "theory.solver.exchange: proofs.counting._private",
        "theory.solver.exchange: theory.solver.cone_kernel._derive",
        "theory.solver.exchange: theory.solver.label_kernel._minimize",
    ]
    own = ast.parse("from theory.solver.cone_kernel import _derive")
    assert underscore_imports("theory.solver.cone_kernel", own) == []


# --- the design page's table names every package and module group ---------------------------


def design_table() -> set[str]:
    """The folders named in the structure diagram of docs/design.md section 3 (the first
    word ending in ``/`` on each line of it)."""
    text = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    section = text.split("## 3. Architecture", 1)[1].split("\n## ", 1)[0]
    diagram = section.split("```", 2)[1]
    named = set()
    for line in diagram.splitlines():
        folders = [word for word in line.split() if word.endswith("/")]
        if folders:
            named.add(folders[0].rstrip("/"))
    return named


def test_the_design_table_names_every_package_and_module_group():
    wings = {path.parent.name for path in (ROOT / "jtms").glob("*/__init__.py")}
    rooms = {path.parent.name for path in (ROOT / "theory").glob("*/__init__.py")}
    assert design_table() == set(PACKAGES) | wings | rooms
    # and the layers above name exactly those wings
    assert {g.split(".")[1] for g in LAYERS if g.count(".") == 1} == wings
