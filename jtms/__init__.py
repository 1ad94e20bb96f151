"""Production side: the ``jtms`` CLI, the persistent memory and selective reconsolidation.

Every semantic decision is delegated to :mod:`theory`; this package adds persistence,
incrementality and rendering.
"""
