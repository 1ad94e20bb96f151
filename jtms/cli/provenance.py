"""Provenance of a run: which code, on which Python, with which packages and arguments made a
figure, and the SHA-256 manifest of what the run wrote.

Every ``--json`` of ``enumerate``, ``prove``, ``study``, ``check`` and ``fuzz`` carries the
object :func:`provenance` returns, under the key ``provenance``: the tool's version, the
commit of the checkout it ran from (None from an installed copy), Python, the versions of the
packages the run imported, the arguments as parsed and the seeds. It is the one part of those
documents that changes between runs of the same command; everything else stays deterministic.

``--manifest FILE`` (the same five commands) writes :func:`manifest`: the provenance, the
SHA-256 of the standard output and of every file the run wrote (its ``--plot``, part files,
certificates, transcripts), so a published result can be checked byte for byte
(``sha256sum``). This module is the only place that computes either.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TextIO

import jtms

PROVENANCE_KEY = "provenance"
"""The key of the provenance object in every ``--json`` of the five commands."""

PACKAGES: dict[str, str] = {
    "pysat": "python-sat",
    "z3": "z3-solver",
    "sympy": "sympy",
    "numpy": "numpy",
    "hypothesis": "hypothesis",
    "clingo": "clingo",
    "dask": "dask",
    "distributed": "distributed",
    "numba": "numba",
    "psycopg": "psycopg",
    "rich": "rich",
    "matplotlib": "matplotlib",
    "dratify": "dratify",
    "drup": "drup",
    "mcp": "mcp",
    "prov": "prov",
    "reasons": "ftl-reasons",
    "ltms": "ltms",
}
"""Module -> distribution, for the packages whose versions a provenance records when the run
imported them (the project's dependencies and extras; a module not imported is not listed)."""

FILE_OPTIONS: dict[str, str] = {
    "plot": "--plot",
    "out": "--out",
    "graph_out": "--graph-out",
}
"""Argument -> option of the files a run writes (hashed into the manifest when present)."""

FOLDER_OPTIONS: dict[str, str] = {
    "certificate_dir": "--certificate-dir",
    "export": "--export",
    "transcript": "--transcript",
}
"""Argument -> option of the folders a run writes into (their files written by this run are
hashed into the manifest)."""

_SEEDS = "_provenance_seeds"  # where a command notes its seeds on its namespace
_CACHED = "_provenance"  # the object once made, so the JSON and the manifest carry the same


CODE = ("theory", "jtms", "enumerations", "proofs", "pyproject.toml", "setup.py")
"""What a run executes, of a checkout: ``dirty`` says whether any of it differs from the
commit (results, docs and tests may: a run that rewrites a stored result in the checkout
does not make its own code dirty)."""


def checkout_commit(root: Path | None = None) -> dict[str, Any] | None:
    """The git commit of the checkout the code runs from, and whether the code of the run
    (:data:`CODE`) differs from it (``dirty``); None for an installed copy or when git is
    not available."""
    where = Path(jtms.__file__).resolve().parent.parent if root is None else root
    if not (where / ".git").exists():
        return None
    try:
        head = subprocess.run(
            ["git", "-C", str(where), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
        )
        if head.returncode != 0:
            return None
        status = subprocess.run(
            ["git", "-C", str(where), "status", "--porcelain", "--untracked-files=no", "--"]
            + list(CODE),
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return {"commit": head.stdout.strip(), "dirty": bool(status.stdout.strip())}


def package_versions(modules: Iterable[str] | None = None) -> dict[str, str]:
    """Distribution -> version of every package of :data:`PACKAGES` the process has imported
    (``modules``: the top-level names to consider; default: ``sys.modules``)."""
    from importlib import metadata

    loaded = set(sys.modules if modules is None else modules)
    versions: dict[str, str] = {}
    for module, distribution in PACKAGES.items():
        if module in loaded:
            try:
                versions[distribution] = metadata.version(distribution)
            except metadata.PackageNotFoundError:
                versions[distribution] = "unknown"
    return dict(sorted(versions.items()))


def _plain(value: Any) -> Any:
    """A JSON value for an argument as argparse parsed it (paths as text, tuples as lists)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [_plain(v) for v in value]
        return sorted(items, key=repr) if isinstance(value, (set, frozenset)) else items
    return str(value)


def arguments_of(args: argparse.Namespace) -> dict[str, Any]:
    """The command and its arguments as parsed (defaults included), sorted by name."""
    return {
        key: _plain(value)
        for key, value in sorted(vars(args).items())
        if not key.startswith("_") and not callable(value)
    }


def note_seeds(args: argparse.Namespace, seeds: Mapping[str, Any]) -> None:
    """Record the seeds a run uses (by what they seed), for its provenance."""
    setattr(args, _SEEDS, {**getattr(args, _SEEDS, {}), **seeds})


def provenance(args: argparse.Namespace) -> dict[str, Any]:
    """The ``provenance`` object of the run of the command ``args`` (see the module's text),
    with the seeds noted by :func:`note_seeds`; made once per run, so the JSON and the
    manifest of one run carry the same object."""
    cached = getattr(args, _CACHED, None)
    if cached is not None:
        return dict(cached)
    made = {
        "tool": "jtms-revision",
        "version": jtms.__version__,
        "checkout": checkout_commit(),
        "python": {
            "version": platform.python_version(),
            "implementation": platform.python_implementation(),
        },
        "platform": platform.platform(),
        "packages": package_versions(),
        "command": getattr(args, "command", None),
        "arguments": arguments_of(args),
        "seeds": _plain(getattr(args, _SEEDS, {})),
    }
    setattr(args, _CACHED, made)
    return dict(made)


def with_provenance(payload: Mapping[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    """``payload`` with the run's provenance as its last key."""
    return {**payload, PROVENANCE_KEY: provenance(args)}


def add_manifest_argument(parser: argparse.ArgumentParser) -> None:
    """``--manifest FILE`` on one command's parser (``main`` writes it after the run)."""
    parser.add_argument(
        "--manifest",
        metavar="FILE",
        default=None,
        help="write a JSON manifest: the run's provenance and the SHA-256 of its standard "
        "output and of every file it wrote",
    )


class HashingStdout:
    """Standard output that also hashes what passes through it (for the manifest)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.digest = hashlib.sha256()
        self.size = 0

    def write(self, text: str) -> int:
        data = text.encode("utf-8", "surrogateescape")
        self.digest.update(data)
        self.size += len(data)
        return self.stream.write(text)

    def __getattr__(self, name: str) -> Any:  # flush, fileno, isatty, encoding, ...
        return getattr(self.stream, name)


def sha256_file(path: Path) -> tuple[str, int]:
    """The SHA-256 (hex) and size in bytes of the file at ``path``."""
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
            size += len(block)
    return digest.hexdigest(), size


def written_files(args: argparse.Namespace, since: float) -> list[Path]:
    """The files the run named by ``args`` wrote: its output files, and the files of its output
    folders modified at or after ``since`` (a time.time() taken before it ran)."""
    found: list[Path] = []
    for key in FILE_OPTIONS:
        value = getattr(args, key, None)
        if value and Path(value).is_file():
            found.append(Path(value))
    for key in FOLDER_OPTIONS:
        value = getattr(args, key, None)
        if value and Path(value).is_dir():
            for item in sorted(Path(value).rglob("*")):
                if item.is_file() and item.stat().st_mtime >= since - 1.0:
                    found.append(item)
    return found


def manifest(
    args: argparse.Namespace,
    stdout: HashingStdout | None,
    since: float,
    exit_code: int,
) -> dict[str, Any]:
    """The manifest of a finished run: its provenance, exit code, and the SHA-256 and size of
    its standard output and of every file it wrote (paths as given on the command line)."""
    files = []
    for path in written_files(args, since):
        digest, size = sha256_file(path)
        files.append({"path": str(path), "sha256": digest, "bytes": size})
    return {
        "provenance": provenance(args),
        "exit_code": exit_code,
        "stdout": None
        if stdout is None
        else {"sha256": stdout.digest.hexdigest(), "bytes": stdout.size},
        "files": files,
    }


def write_manifest(path: str, document: Mapping[str, Any]) -> None:
    """Write ``document`` to ``path`` (through the CLI's output file rules)."""
    from jtms.cli.output_file import open_output

    with open_output(path, "--manifest", what="the manifest") as handle:
        handle.write(json.dumps(document, indent=2) + "\n")


__all__ = [
    "FILE_OPTIONS",
    "FOLDER_OPTIONS",
    "HashingStdout",
    "PACKAGES",
    "PROVENANCE_KEY",
    "add_manifest_argument",
    "arguments_of",
    "checkout_commit",
    "manifest",
    "note_seeds",
    "package_versions",
    "provenance",
    "sha256_file",
    "with_provenance",
    "write_manifest",
    "written_files",
]
