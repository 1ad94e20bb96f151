"""Evaluating the functions of the calculation grammar on sympy values, with units.

:mod:`jtms.calc.safe_expr` bounds an expression statically and builds it, calling
:func:`apply_function` for each whitelisted function; :mod:`jtms.calc.quantities` reduces
values to SI units to compare them. Both use the unit rules here, so this module imports
neither.
"""

from __future__ import annotations

from typing import Any


class DimensionError(ValueError):
    """Quantities of different dimensions were added, compared or passed to a function."""


class Refusal(Exception):
    """The calculation cannot be evaluated within the limits (reported as refused)."""


def si_value(value: Any) -> tuple[Any, Any]:
    """``(number in SI units, dimension)`` of a sympy quantity."""
    from sympy.physics.units import Dimension, Quantity
    from sympy.physics.units.systems.si import SI

    if not value.has(Quantity):
        return value, Dimension(1)
    try:
        return SI._collect_factor_and_dimension(value)
    except (ValueError, TypeError) as error:
        if "Dimension of" in str(error):
            raise DimensionError(str(error)) from None
        raise Refusal(f"cannot reduce to SI units ({type(error).__name__})") from None


def same_dimension(a: Any, b: Any) -> bool:
    from sympy.physics.units.systems.si import dimsys_SI

    return bool(
        dimsys_SI.get_dimensional_dependencies(a) == dimsys_SI.get_dimensional_dependencies(b)
    )


def _ordered(values: list[Any]) -> list[Any]:
    import sympy

    keyed: list[tuple[Any, int, Any]] = []
    dimension = None
    for value in values:
        factor, dim = si_value(value)
        if dimension is not None and not same_dimension(dim, dimension):
            raise DimensionError("values of different dimensions cannot be ordered")
        dimension = dim
        number = sympy.N(factor, 30)
        if not number.is_real:
            raise ValueError("values to order must be real numbers")
        keyed.append((number, len(keyed), value))
    return [v for _, _, v in sorted(keyed, key=lambda k: (k[0], k[1]))]


# functions whose arguments may carry units (all others need dimensionless arguments)
KEEPS_UNITS = frozenset(
    {"sqrt", "abs", "Abs", "min", "max", "Min", "Max", "sum", "mean", "median", "variance", "stdev"}
)


def apply_function(name: str, args: list[Any]) -> Any:
    """The sympy value of a whitelisted function on built arguments."""
    import sympy

    simple = {
        "sqrt": sympy.sqrt,
        "exp": sympy.exp,
        "ln": sympy.log,
        "sin": sympy.sin,
        "cos": sympy.cos,
        "tan": sympy.tan,
        "asin": sympy.asin,
        "acos": sympy.acos,
        "atan": sympy.atan,
        "atan2": sympy.atan2,
        "sinh": sympy.sinh,
        "cosh": sympy.cosh,
        "tanh": sympy.tanh,
        "abs": sympy.Abs,
        "Abs": sympy.Abs,
        "floor": sympy.floor,
        "ceiling": sympy.ceiling,
        "factorial": sympy.factorial,
        "binomial": sympy.binomial,
        "gcd": sympy.gcd,
        "lcm": sympy.lcm,
        "Rational": sympy.Rational,
    }
    n = len(args)
    if name not in KEEPS_UNITS and not all(dimensionless(si_value(a)[1]) for a in args):
        raise DimensionError(f"{name} of a quantity with units")
    if name in simple:
        return simple[name](*args)
    if name == "log":
        return sympy.log(*args)
    if name == "log10":
        return sympy.log(args[0], 10)
    if name == "log2":
        return sympy.log(args[0], 2)
    if name == "round":
        return sympy.floor(sympy.Abs(args[0]) + sympy.Rational(1, 2)) * sympy.sign(args[0])
    if name in ("sum", "mean", "variance", "stdev"):
        total = sympy.Add(*args)
        si_value(total)  # refuses a sum of different dimensions
        if name == "sum":
            return total
        mean = total / n
        if name == "mean":
            return mean
        variance = sympy.Add(*((a - mean) ** 2 for a in args)) / (n - 1)
        return variance if name == "variance" else sympy.sqrt(variance)
    ordered = _ordered(args)
    if name in ("min", "Min"):
        return ordered[0]
    if name in ("max", "Max"):
        return ordered[-1]
    assert name == "median"
    middle = n // 2
    return ordered[middle] if n % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def dimensionless(dimension: Any) -> bool:
    from sympy.physics.units.systems.si import dimsys_SI

    return not dimsys_SI.get_dimensional_dependencies(dimension)


__all__ = [
    "KEEPS_UNITS",
    "DimensionError",
    "Refusal",
    "apply_function",
    "dimensionless",
    "same_dimension",
    "si_value",
]
