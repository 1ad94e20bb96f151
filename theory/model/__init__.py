"""The model: support structures, their numbered index, graph algorithms, ids and errors.

Everything else in :mod:`theory` is computed over these types.
"""
