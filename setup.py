"""Build of the compiled core: every ``.pyx`` module under the packages becomes a C extension
at install time (``pip install -e .`` and a wheel build alike), so nothing compiles at run
time. The project's metadata is in ``pyproject.toml``; this file only lists the extensions."""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
PACKAGES = ("theory", "jtms", "enumerations")

COMPILER_HELP = (
    "jtms-revision: building its compiled core needs a C compiler and the Python headers: "
    "install them (Debian: apt-get install -y gcc python3-dev) and run pip again"
)


class BuildExt(build_ext):
    """``build_ext`` that turns a missing compiler or header into one line naming the fix."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # distutils' CompileError, CCompilerError, PlatformError
            if type(error).__name__ in (
                "CompileError",
                "CCompilerError",
                "PlatformError",
                "DistutilsPlatformError",
                "DistutilsExecError",
            ):
                sys.exit(f"{COMPILER_HELP} ({type(error).__name__}: {error})")
            raise

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as error:
            if type(error).__name__ in (
                "CompileError",
                "CCompilerError",
                "DistutilsExecError",
                "LinkError",
            ):
                sys.exit(f"{COMPILER_HELP} ({ext.name}: {error})")
            raise


def extensions() -> list[Extension]:
    sources = sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.pyx"))
    if not sources:
        return []
    from Cython.Build import cythonize

    modules = [
        Extension(
            ".".join(path.relative_to(ROOT).with_suffix("").parts),
            [str(path.relative_to(ROOT))],
            # C headers beside a module are its own (enumerations/monotone_kernel.h): a change
            # to one rebuilds it
            depends=sorted(str(h.relative_to(ROOT)) for h in path.parent.glob("*.h")),
            extra_compile_args=["-O3"],
        )
        for path in sources
    ]
    return cythonize(
        modules,
        language_level=3,
        compiler_directives={
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
        quiet=True,
    )


setup(ext_modules=extensions(), cmdclass={"build_ext": BuildExt})
