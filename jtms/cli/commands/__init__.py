"""CLI commands, one module per command (or family of commands).

Each module defines ``register(subparsers)``, which adds its parser(s) and sets
``func=run`` where ``run(args) -> int`` returns the exit code. :mod:`jtms.cli` discovers
the modules automatically, so adding a command never edits a shared file.
"""
