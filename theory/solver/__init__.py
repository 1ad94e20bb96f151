"""The solver core: minimal justifications (ATMS labels) of claims through support loops.

The entry point is :func:`theory.solver.justifications.minimal_justifications`.
"""
