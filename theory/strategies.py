"""Public hypothesis strategies, importable as ``theory.strategies`` (defined in
:mod:`theory.testing.strategies`)."""

from theory.testing.strategies import *  # noqa: F401,F403
from theory.testing.strategies import __all__  # noqa: F401
