"""Re-executing one recorded calculation and comparing it with its recorded value.

Values are sympy expressions, possibly with physical units (``sympy.physics.units``). Both
sides are reduced to a number in SI units and a dimension; different dimensions are a
discrepancy, equal dimensions are compared under a :class:`Tolerance`:

- ``stated`` (the default): at the recorded value's own stated precision, half a unit of its
  last digit (``3.3333`` allows 0.00005, so it matches ``10/3``; ``41`` allows 0.5, so it
  does not match ``6*7``); a recorded value that is not a decimal literal (``sqrt(2)``,
  ``1/3``) is compared exactly;
- ``explicit``: ``|recomputed - recorded| <= atol + rtol * |recorded|``, in the recorded
  value's unit (``--rtol`` / ``--atol``);
- ``exact``: equal as numbers (exactly for rationals, to 50 digits otherwise).

:func:`compare` runs inside the reviewer's worker processes (:mod:`jtms.calc.sandbox`): building
and evaluating a checked expression is bounded by :mod:`jtms.calc.safe_expr`, the time limit
guards the rest.

>>> compare("10/3", "3.3333", Tolerance()).status
'ok'
>>> compare("6*7", "41", Tolerance()).status
'discrepancy'
>>> compare("3*meter", "3*second", Tolerance()).problem
'dimension mismatch: recomputed length, recorded time'
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from jtms.calc.evaluation import DimensionError, Refusal, dimensionless, same_dimension, si_value
from jtms.calc.safe_expr import (
    UnsafeExpression,
    build_expression,
    check_expression,
    stated_precision,
)

EXACT_DIGITS = 50  # digits to which non-rational values are compared "exactly"
GUARD_DIGITS = 15  # digits evaluated beyond those a comparison needs


@dataclass(frozen=True)
class Tolerance:
    """How closely a recomputed value must match: ``mode`` is stated, explicit or exact."""

    mode: str = "stated"
    rtol: float = 0.0
    atol: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "rtol": self.rtol if self.mode == "explicit" else None,
            "atol": self.atol if self.mode == "explicit" else None,
        }


@dataclass(frozen=True)
class Outcome:
    """The verdict on one calculation: ``ok``, ``discrepancy`` or ``refused`` (and why)."""

    status: str
    recomputed: str | None = None
    problem: str = ""
    difference: str | None = None  # |recomputed - recorded| in the recorded unit
    allowed: str | None = None  # the difference the tolerance allows


def prepare() -> None:
    """Import sympy and its unit system (before forking workers, so they share them)."""
    import sympy  # noqa: F401
    from sympy.physics.units.systems.si import SI  # noqa: F401


def warm_up() -> None:
    """A worker's start: import sympy and run one comparison with units (not timed)."""
    prepare()
    compare("1*meter", "1*meter", Tolerance())


# --- comparing --------------------------------------------------------------------------------


def _dimension_name(dimension: Any) -> str:
    return "dimensionless" if dimensionless(dimension) else str(dimension.name)


def _show(value: Any) -> str:
    """An exact value as written when short (``10/3``, ``3*meter``), else 15 digits."""
    import sympy

    text = str(value)
    if (
        len(text) <= 60
        and not value.atoms(sympy.Float)
        and not (value.is_number and not value.is_Rational)
    ):
        return text
    return str(sympy.N(value, 15))


def _decimal(value: Any) -> str:
    """A difference or tolerance, in 6 significant digits."""
    import sympy

    number = sympy.N(value, 6)
    try:
        return f"{float(number):.6g}"
    except (OverflowError, TypeError):
        return str(number)


def _number(text: str, which: str) -> tuple[Any, Any, Any]:
    """``(built value, SI number, dimension)``; raises Refusal or DimensionError."""
    import sympy

    try:
        check_expression(text)
        value = build_expression(text)
    except UnsafeExpression as error:
        raise Refusal(f"{which}: {error.problem}") from None
    except DimensionError:
        raise
    except (ValueError, TypeError, ArithmeticError) as error:
        raise Refusal(f"{which} cannot be evaluated ({type(error).__name__})") from None
    factor, dimension = si_value(value)
    factor = sympy.sympify(factor)
    if factor.free_symbols or not factor.is_number:
        raise Refusal(f"{which} does not evaluate to a number")
    if factor.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        raise Refusal(f"{which} is not finite")
    numeric = sympy.N(factor, 20)
    if not numeric.is_real:
        raise Refusal(f"{which} is not a real number")
    if not numeric.is_finite:
        raise Refusal(f"{which} is not finite")
    return value, factor, dimension


def compare(expression: str, recorded: str, tolerance: Tolerance) -> Outcome:
    """Re-execute ``expression`` and compare it with ``recorded`` under ``tolerance``."""
    try:
        return _compare(expression, recorded, tolerance)
    except Refusal as refusal:
        return Outcome("refused", problem=f"refused: {refusal}")
    except RecursionError:
        return Outcome("refused", problem="refused: expression too deep to evaluate")
    except (TypeError, ValueError, ArithmeticError) as error:
        return Outcome("refused", problem=f"refused: cannot be evaluated ({type(error).__name__})")
    except MemoryError:
        return Outcome("refused", problem="refused: out of memory while evaluating")


def _compare(expression: str, recorded: str, tolerance: Tolerance) -> Outcome:
    import sympy

    try:
        value, a, a_dimension = _number(expression, "expression")
    except DimensionError as error:
        return Outcome("discrepancy", problem=f"dimension mismatch in the expression: {error}")
    try:
        _, b, b_dimension = _number(recorded, "recorded value")
    except DimensionError as error:
        raise Refusal(f"recorded value mixes dimensions ({error})") from None
    shown = _show(value)
    if not same_dimension(a_dimension, b_dimension):
        return Outcome(
            "discrepancy",
            shown,
            f"dimension mismatch: recomputed {_dimension_name(a_dimension)}, "
            f"recorded {_dimension_name(b_dimension)}",
        )
    stated = stated_precision(recorded)
    if stated is not None and stated[0] != 0:
        scale = b / sympy.Rational(stated[0].numerator, stated[0].denominator)
    else:
        scale = sympy.Integer(1)
    if tolerance.mode == "exact" or (tolerance.mode == "stated" and stated is None):
        allowed: Any = sympy.Integer(0)
    elif tolerance.mode == "stated":
        assert stated is not None
        allowed = sympy.Rational(stated[1].numerator, stated[1].denominator)
    else:
        magnitude = abs(b / scale)
        allowed = (
            sympy.Rational(Fraction(tolerance.atol))
            + sympy.Rational(Fraction(tolerance.rtol)) * magnitude
        )
    difference = (a - b) / scale
    digits = EXACT_DIGITS + GUARD_DIGITS
    if stated is not None:
        digits = max(digits, len(str(stated[0].numerator)) + GUARD_DIGITS)
    if difference.is_Rational and allowed.is_Rational:
        gap = abs(difference)
        same = bool(gap <= allowed) if allowed else bool(gap == 0)
    else:
        gap = abs(sympy.N(difference, digits))
        if not gap.is_real:
            raise Refusal("the values are not real numbers")
        if allowed == 0:
            size = max(abs(sympy.N(b / scale, digits)), 1)
            same = bool(gap <= size * sympy.Integer(10) ** -EXACT_DIGITS)
        else:
            same = bool(gap <= allowed)
    if same:
        return Outcome("ok", shown, "", _decimal(gap), _decimal(allowed))
    return Outcome(
        "discrepancy",
        shown,
        f"recomputed {shown}, recorded {recorded}",
        _decimal(gap),
        _decimal(allowed),
    )
