"""The ``jtms`` console script: :func:`main` parses the arguments and runs one command of
:mod:`jtms.cli.commands`; ``arguments``, ``exit_codes``, ``output``, ``plugins`` and
``progress`` are what the commands share.
"""

from jtms.cli.console import main

__all__ = ["main"]
