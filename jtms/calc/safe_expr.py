"""Safe parsing of recorded calculations: a whitelist grammar and size bounds, checked statically.

Memory files come from other people, and sympy's ``sympify``/``parse_expr`` evaluate Python
code. This module never calls them: it parses the text with :func:`ast.parse` (which only
parses), walks the tree against the whitelist below, and bounds, *before anything is
evaluated*, the size of every intermediate value: an upper bound on its magnitude and on the
digits needed to write it exactly. An expression whose bounds exceed the limits
(``factorial(10000)``, ``10**10000``, ``10**4000*10**4000``, ``exp(10**10000)``,
``exp(exp(exp(10)))``) is refused with :class:`UnsafeExpression` and its reason, so
``add-evidence`` and ``import`` can refuse it at input (exit 2) and the reviewer can report
it as refused. The check is pure Python arithmetic on floats: it cannot hang.

:func:`check_expression` is that static check; :func:`build_expression` turns a checked text
into a sympy expression (run it in a worker process under a time limit, see
:mod:`jtms.calc.sandbox`: building evaluates eagerly). The accepted grammar is :data:`GRAMMAR`,
documented as one table in docs/memory.md ("Recorded calculations").

>>> check_expression("sqrt(2)*meter").has_units
True
>>> check_expression("factorial(10000)")
Traceback (most recent call last):
...
jtms.calc.safe_expr.UnsafeExpression: factorial(10000) would have more than 4000 digits
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

from jtms.calc.evaluation import apply_function
from theory.model.errors import InputError

MAX_LENGTH = 1000  # characters of an expression or recorded value
MAX_DEPTH = 50  # nesting of the syntax tree
MAX_DIGITS = 4000  # digits of any intermediate value (Python prints ints up to 4300)
MAX_PRECISION = 100  # significant digits of a decimal literal
MAX_PERIODIC_ARGUMENT = 100  # log10 bound of a trigonometric argument (evaluation precision)
MAX_LIST = 1000  # elements of a statistics list
DOUBLE_DIGITS = 17  # significant digits of a double's shortest repr, at most
DOUBLE_EPSILON = Fraction(1, 2**52)  # relative spacing of doubles

LOG10_E = math.log10(math.e)
LOG10_2 = math.log10(2)
NONE = -math.inf  # log10 of 0 (or "may be arbitrarily close to 0")


class UnsafeExpression(InputError):
    """An expression outside the whitelist, or too large to evaluate within the limits."""


@dataclass(frozen=True)
class Bound:
    """What is known of a value before evaluating it.

    ``hi``: an upper bound of log10 |value| (``-inf`` for 0); ``lo``: a lower bound of
    log10 |value| when the value is not 0 (``-inf``: it may be arbitrarily small);
    ``digits``: an upper bound of the digits needed to write it exactly; ``exact``: the value
    itself when it is a small rational constant (used for exponents and integer arguments);
    ``length``: the number of elements when it is a list; ``has_units``: whether a physical
    unit occurs in it.
    """

    hi: float
    lo: float
    digits: float
    exact: Fraction | None = None
    length: int | None = None
    has_units: bool = False


# --- the grammar ---------------------------------------------------------------------------------

# unit name -> sympy.physics.units attribute (looked up only when building)
UNITS: dict[str, str] = {
    name: name
    for name in (
        "meter",
        "kilometer",
        "centimeter",
        "millimeter",
        "micrometer",
        "nanometer",
        "second",
        "millisecond",
        "microsecond",
        "nanosecond",
        "minute",
        "hour",
        "day",
        "kilogram",
        "gram",
        "milligram",
        "newton",
        "joule",
        "watt",
        "pascal",
        "bar",
        "atmosphere",
        "ampere",
        "volt",
        "ohm",
        "coulomb",
        "farad",
        "henry",
        "tesla",
        "weber",
        "kelvin",
        "mole",
        "liter",
        "milliliter",
        "hertz",
        "candela",
        "electronvolt",
        "degree",
        "radian",
        "steradian",
        "lux",
        "gray",
        "becquerel",
        "siemens",
        "percent",
        "planck",
        "hbar",
        "speed_of_light",
        "gravitational_constant",
        "avogadro_number",
        "elementary_charge",
        "boltzmann",
    )
}
UNITS.update(
    {
        "m": "meter",
        "km": "kilometer",
        "cm": "centimeter",
        "mm": "millimeter",
        "um": "micrometer",
        "nm": "nanometer",
        "s": "second",
        "ms": "millisecond",
        "us": "microsecond",
        "ns": "nanosecond",
        "h": "hour",
        "kg": "kilogram",
        "g": "gram",
        "mg": "milligram",
        "N": "newton",
        "J": "joule",
        "W": "watt",
        "Pa": "pascal",
        "kPa": "kPa",
        "atm": "atmosphere",
        "A": "ampere",
        "V": "volt",
        "C": "coulomb",
        "F": "farad",
        "H": "henry",
        "T": "tesla",
        "Wb": "weber",
        "K": "kelvin",
        "mol": "mole",
        "L": "liter",
        "mL": "milliliter",
        "Hz": "hertz",
        "cd": "candela",
        "eV": "electronvolt",
        "deg": "degree",
        "rad": "radian",
        "sr": "steradian",
        "lx": "lux",
        "Gy": "gray",
        "Bq": "becquerel",
        "S": "siemens",
        "Da": "dalton",
        "dalton": "dalton",
    }
)
CONSTANTS: dict[str, float] = {"pi": math.pi, "E": math.e}


@dataclass(frozen=True)
class Function:
    """One whitelisted function: its arity, its size rule and its one-line meaning."""

    name: str
    arity: tuple[int, int]  # (min, max) positional arguments; max -1: any
    rule: Callable[[Sequence[Bound], str], Bound]
    meaning: str
    lists: bool = False  # accepts one list literal ``f([x, y, ...])``


def _digits(value: int) -> float:
    return max(1.0, abs(value).bit_length() * LOG10_2)


def _log10(value: float) -> float:
    return math.log10(abs(value)) if value else NONE


def _refuse_size(what: str) -> UnsafeExpression:
    return UnsafeExpression(f"{what} would have more than {MAX_DIGITS} digits")


def _limit(bound: Bound, what: str) -> Bound:
    if (
        bound.hi > MAX_DIGITS
        or bound.digits > MAX_DIGITS
        or bound.lo < -MAX_DIGITS - 1
        and bound.lo != NONE
    ):
        raise _refuse_size(what)
    return bound


def _integer(bound: Bound, function: str) -> int:
    if bound.exact is None or bound.exact.denominator != 1:
        raise UnsafeExpression(f"{function} needs integer arguments written as numbers")
    return bound.exact.numerator


def _exact(value: Fraction) -> Bound:
    magnitude = math.log10(abs(value.numerator)) - math.log10(value.denominator) if value else NONE
    return Bound(magnitude, magnitude, _digits(value.numerator) + _digits(value.denominator), value)


def _unknown(hi: float, lo: float = NONE, digits: float = 1.0, units: bool = False) -> Bound:
    return Bound(hi, lo, max(digits, 1.0), None, None, units)


def _units(args: Sequence[Bound]) -> bool:
    return any(a.has_units for a in args)


def _exp_rule(args: Sequence[Bound], name: str) -> Bound:
    x = args[0]
    if x.hi > math.log10(MAX_DIGITS / LOG10_E):
        raise _refuse_size(f"{name} of a value up to 10^{x.hi:.0f}")
    magnitude = 10**x.hi * LOG10_E if x.hi != NONE else 0.0
    return _unknown(magnitude, -magnitude, 2.0, x.has_units)


def _log_rule(args: Sequence[Bound], name: str) -> Bound:
    x = args[0]
    if x.exact == 0 or x.hi == NONE:
        raise UnsafeExpression(f"{name} of 0")
    spread = max(abs(x.hi), abs(x.lo) if x.lo != NONE else x.digits, 1.0)
    return _unknown(math.log10(spread / LOG10_E) + 1, NONE, 2.0, _units(args))


def _periodic_rule(args: Sequence[Bound], name: str) -> Bound:
    x = args[0]
    if x.hi > MAX_PERIODIC_ARGUMENT:
        raise UnsafeExpression(f"{name} of a value larger than 10^{MAX_PERIODIC_ARGUMENT}")
    # tan may be arbitrarily large near pi/2; its magnitude is bounded by the precision
    hi = 0.0 if name != "tan" else float(MAX_PRECISION)
    return _unknown(hi, NONE, 2.0, x.has_units)


def _inverse_rule(args: Sequence[Bound], name: str) -> Bound:
    return _unknown(1.0, NONE, 2.0, _units(args))


def _root_rule(args: Sequence[Bound], name: str) -> Bound:
    x = args[0]
    return _unknown(x.hi / 2, x.lo / 2, x.digits / 2 + 1, x.has_units)


def _same_rule(args: Sequence[Bound], name: str) -> Bound:
    x = args[0]
    return _unknown(x.hi, NONE, max(x.digits, x.hi + 1), x.has_units)


def _factorial_rule(args: Sequence[Bound], name: str) -> Bound:
    n = _integer(args[0], name)
    if n < 0:
        raise UnsafeExpression(f"{name} of a negative number")
    if n > MAX_DIGITS:  # n! > n for n > 2: it would not fit anyway
        raise _refuse_size(f"{name}({n})")
    digits = math.lgamma(n + 1) / math.log(10) if n > 1 else 0.0
    if digits > MAX_DIGITS:
        raise _refuse_size(f"{name}({n})")
    return _unknown(digits, 0.0, digits + 1)


def _binomial_rule(args: Sequence[Bound], name: str) -> Bound:
    n, k = (_integer(a, name) for a in args)
    if n < 0:
        raise UnsafeExpression(f"{name} of a negative number")
    digits = n * LOG10_2 if n <= MAX_DIGITS / LOG10_2 + 1 else math.inf  # C(n, k) <= 2^n
    if digits > MAX_DIGITS:
        raise _refuse_size(f"{name}({n}, {k})")
    return _unknown(digits, 0.0, digits + 1)


def _integers_rule(args: Sequence[Bound], name: str) -> Bound:
    for a in args:
        _integer(a, name)
    digits = sum(a.digits for a in args)
    return _limit(_unknown(digits, 0.0, digits), f"{name}(...)")


def _rational_rule(args: Sequence[Bound], name: str) -> Bound:
    p, q = (_integer(a, name) for a in args) if len(args) == 2 else (_integer(args[0], name), 1)
    if q == 0:
        raise UnsafeExpression("Rational with denominator 0")
    return _exact(Fraction(p, q))


def _extreme_rule(args: Sequence[Bound], name: str) -> Bound:
    return _unknown(
        max(a.hi for a in args), min(a.lo for a in args), max(a.digits for a in args), _units(args)
    )


def _sum_rule(args: Sequence[Bound], name: str) -> Bound:
    hi = max(a.hi for a in args) + math.log10(len(args))
    digits = sum(a.digits for a in args) + math.log10(len(args)) + 1
    return _limit(_unknown(hi, NONE, digits, _units(args)), f"{name}(...)")


def _variance_rule(args: Sequence[Bound], name: str) -> Bound:
    spread = _sum_rule(args, name)
    hi, digits = 2 * spread.hi + 1, 2 * spread.digits + math.log10(len(args)) + 1
    if name == "stdev":
        hi, digits = hi / 2, digits / 2 + 1
    return _limit(_unknown(hi, NONE, digits, _units(args)), f"{name}(...)")


FUNCTIONS: dict[str, Function] = {
    f.name: f
    for f in (
        Function("sqrt", (1, 1), _root_rule, "square root"),
        Function("exp", (1, 1), _exp_rule, "e to the power x"),
        Function("log", (1, 2), _log_rule, "natural logarithm; log(x, b) in base b"),
        Function("ln", (1, 1), _log_rule, "natural logarithm"),
        Function("log10", (1, 1), _log_rule, "decimal logarithm"),
        Function("log2", (1, 1), _log_rule, "binary logarithm"),
        Function("sin", (1, 1), _periodic_rule, "sine (radians)"),
        Function("cos", (1, 1), _periodic_rule, "cosine (radians)"),
        Function("tan", (1, 1), _periodic_rule, "tangent (radians)"),
        Function("asin", (1, 1), _inverse_rule, "inverse sine"),
        Function("acos", (1, 1), _inverse_rule, "inverse cosine"),
        Function("atan", (1, 1), _inverse_rule, "inverse tangent"),
        Function("atan2", (2, 2), _inverse_rule, "atan2(y, x): angle of the point (x, y)"),
        Function("sinh", (1, 1), _exp_rule, "hyperbolic sine"),
        Function("cosh", (1, 1), _exp_rule, "hyperbolic cosine"),
        Function("tanh", (1, 1), _inverse_rule, "hyperbolic tangent"),
        Function("abs", (1, 1), _same_rule, "absolute value (also Abs)"),
        Function("Abs", (1, 1), _same_rule, "absolute value"),
        Function("floor", (1, 1), _same_rule, "largest integer <= x"),
        Function("ceiling", (1, 1), _same_rule, "smallest integer >= x"),
        Function("round", (1, 1), _same_rule, "nearest integer (halves away from zero)"),
        Function("factorial", (1, 1), _factorial_rule, "n! for an integer n (n! < 10^4000)"),
        Function("binomial", (2, 2), _binomial_rule, "binomial coefficient n choose k"),
        Function("gcd", (2, 2), _integers_rule, "greatest common divisor of two integers"),
        Function("lcm", (2, 2), _integers_rule, "least common multiple of two integers"),
        Function("Rational", (1, 2), _rational_rule, "the exact fraction p/q"),
        Function("Min", (1, -1), _extreme_rule, "smallest argument (also min)", lists=True),
        Function("Max", (1, -1), _extreme_rule, "largest argument (also max)", lists=True),
        Function("min", (1, -1), _extreme_rule, "smallest of the values", lists=True),
        Function("max", (1, -1), _extreme_rule, "largest of the values", lists=True),
        Function("sum", (1, -1), _sum_rule, "sum of the values", lists=True),
        Function("mean", (1, -1), _sum_rule, "arithmetic mean", lists=True),
        Function(
            "median",
            (1, -1),
            _extreme_rule,
            "median (mean of the middle two when even)",
            lists=True,
        ),
        Function(
            "variance", (2, -1), _variance_rule, "sample variance (divides by n - 1)", lists=True
        ),
        Function("stdev", (2, -1), _variance_rule, "sample standard deviation", lists=True),
    )
}

USAGE = {
    "log": "log(x); log(x, b)",
    "atan2": "atan2(y, x)",
    "factorial": "factorial(n)",
    "binomial": "binomial(n, k)",
    "gcd": "gcd(a, b)",
    "lcm": "lcm(a, b)",
    "Rational": "Rational(p); Rational(p, q)",
}


def _usage(function: Function) -> str:
    if function.name in USAGE:
        return USAGE[function.name]
    if function.lists:
        return f"{function.name}(x1, x2, ...); {function.name}([x1, x2, ...])"
    return f"{function.name}(x)"


# the accepted grammar, one row per construct: (construct, example, bound or note)
GRAMMAR: tuple[tuple[str, str, str], ...] = (
    (
        ("integer literal", "42; 1_000; 0x1F", f"any integer of at most {MAX_LENGTH} characters"),
        (
            "decimal literal",
            "3.3333; 6.02e23",
            f"read exactly (as a fraction); at most {MAX_PRECISION} significant digits",
        ),
        (
            "arithmetic",
            "a + b; a - b; a * b; a / b; a % b; -a; +a; (a)",
            "division or remainder by a literal 0 is refused",
        ),
        ("power", "a ** b", "b a number without units; the result bounded like every value"),
        ("constants", "pi; E", "exact"),
        (
            "units",
            "3*meter; 9.81*m/s**2; 5*kg",
            "names from sympy.physics.units: " + ", ".join(sorted(UNITS)),
        ),
        (
            "list",
            "mean([1, 2, 3])",
            f"only as the single argument of a statistics function, at most {MAX_LIST} elements",
        ),
    )
    + tuple(("function " + f.name, _usage(f), f.meaning) for f in FUNCTIONS.values())
    + (
        (
            "every value",
            "",
            f"at most {MAX_DIGITS} digits, bounded before evaluating; "
            f"nesting at most {MAX_DEPTH}; text at most {MAX_LENGTH} characters",
        ),
        (
            "anything else",
            "names, attributes, strings, keywords, comparisons, lambdas, ...",
            "refused",
        ),
    )
)


def grammar_table() -> str:
    """:data:`GRAMMAR` as the markdown table of docs/memory.md (a test keeps them equal)."""
    lines = ["| construct | written | bound or note |", "|---|---|---|"]
    for construct, written, note in GRAMMAR:
        shown = (
            ", ".join(f"`{part.strip()}`" for part in written.split("; "))
            if written and construct != "anything else"
            else written
        )
        lines.append(f"| {construct} | {shown} | {note} |")
    return "\n".join(lines)


# --- the static check ----------------------------------------------------------------------------


def _parse(text: Any) -> ast.expr:
    if not isinstance(text, str):
        raise UnsafeExpression("an expression must be a string")
    if len(text) > MAX_LENGTH:
        raise UnsafeExpression(f"expression longer than {MAX_LENGTH} characters")
    if not text.strip():
        raise UnsafeExpression("empty expression")
    try:
        return ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError) as error:
        message = getattr(error, "msg", None) or type(error).__name__
        raise UnsafeExpression(f"not an arithmetic expression ({message})") from None


def check_expression(text: Any) -> Bound:
    """The bounds of ``text``, or :class:`UnsafeExpression` saying why it is refused.

    Nothing is evaluated: this is the input check of ``add-evidence`` and ``import``.
    """
    tree = _parse(text)
    return _check(tree, 0, text.strip())


def parse_expression(text: Any) -> Any:
    """The sympy expression of ``text`` (checked, then built), or :class:`UnsafeExpression`.

    Building evaluates: call it where a time limit applies (the reviewer's worker processes).
    """
    check_expression(text)
    return build_expression(text)


def _refuse(what: str) -> UnsafeExpression:
    return UnsafeExpression(
        f"refused {what} in expression "
        f"(only arithmetic on numbers, units and whitelisted functions)"
    )


def _decimal(source: str) -> Fraction:
    try:
        number = Decimal(source)
    except InvalidOperation:
        raise UnsafeExpression(f"not a decimal number: {source[:40]!r}") from None
    sign, digits, exponent = number.as_tuple()
    if not isinstance(exponent, int):
        raise UnsafeExpression("not a finite decimal number")
    if len(digits) > MAX_PRECISION:
        raise UnsafeExpression(f"decimal with more than {MAX_PRECISION} significant digits")
    if abs(exponent) > MAX_DIGITS:
        raise _refuse_size(f"the decimal {source[:40]}")
    return Fraction(number)


def _literal(node: ast.Constant, source: str) -> Fraction:
    value = node.value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _refuse(f"constant {type(value).__name__}")
    if isinstance(value, int):
        return Fraction(value)
    segment = ast.get_source_segment(source, node) or repr(value)
    return _decimal(segment)


def _check(node: ast.AST, depth: int, source: str) -> Bound:
    if depth > MAX_DEPTH:
        raise UnsafeExpression(f"expression nested deeper than {MAX_DEPTH}")
    if isinstance(node, ast.Constant):
        return _limit(_exact(_literal(node, source)), "a literal")
    if isinstance(node, ast.Name):
        if node.id in CONSTANTS:
            magnitude = math.log10(CONSTANTS[node.id])
            return _unknown(magnitude, magnitude)
        if node.id in UNITS:
            return Bound(0.0, 0.0, 1.0, None, None, True)
        raise _refuse(f"name {node.id!r}")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        operand = _check(node.operand, depth + 1, source)
        if operand.exact is not None and isinstance(node.op, ast.USub):
            return Bound(operand.hi, operand.lo, operand.digits, -operand.exact)
        return operand
    if isinstance(node, ast.BinOp):
        left = _check(node.left, depth + 1, source)
        right = _check(node.right, depth + 1, source)
        return _limit(_binary(node.op, left, right), "an intermediate value")
    if isinstance(node, ast.Call):
        return _call(node, depth, source)
    if isinstance(node, ast.List):
        raise _refuse("list outside a statistics function")
    raise _refuse(type(node).__name__)


def _binary(op: ast.operator, left: Bound, right: Bound) -> Bound:
    units = left.has_units or right.has_units
    exact = left.exact is not None and right.exact is not None
    if isinstance(op, (ast.Add, ast.Sub)):
        if exact:
            assert left.exact is not None and right.exact is not None
            return _exact(
                left.exact + right.exact if isinstance(op, ast.Add) else left.exact - right.exact
            )
        return _unknown(max(left.hi, right.hi) + LOG10_2, NONE, left.digits + right.digits, units)
    if isinstance(op, ast.Mult):
        if exact:
            assert left.exact is not None and right.exact is not None
            return _exact(left.exact * right.exact)
        return _unknown(left.hi + right.hi, left.lo + right.lo, left.digits + right.digits, units)
    if isinstance(op, (ast.Div, ast.Mod)):
        if right.exact == 0:
            raise UnsafeExpression("division by zero")
        if exact:
            assert left.exact is not None and right.exact is not None
            return _exact(
                left.exact / right.exact if isinstance(op, ast.Div) else left.exact % right.exact
            )
        if isinstance(op, ast.Mod):
            if units:
                raise UnsafeExpression("remainder of a quantity with units")
            return _unknown(right.hi, NONE, left.digits + right.digits, units)
        hi = left.hi - right.lo if right.lo != NONE else math.inf
        return _unknown(hi, left.lo - right.hi, left.digits + right.digits, units)
    if isinstance(op, ast.Pow):
        return _power(left, right)
    raise _refuse(f"operator {type(op).__name__}")


def _power(base: Bound, exponent: Bound) -> Bound:
    if exponent.has_units:
        raise UnsafeExpression("an exponent cannot carry units")
    if exponent.hi > math.log10(MAX_DIGITS):
        raise UnsafeExpression(f"exponent larger than {MAX_DIGITS}")
    if exponent.exact is not None:
        n = float(exponent.exact)
        if base.exact is not None and exponent.exact.denominator == 1:
            k = exponent.exact.numerator
            if base.exact == 0 and k < 0:
                raise UnsafeExpression("division by zero")
            if abs(k) * max(base.digits, 1) > MAX_DIGITS and base.exact not in (0, 1, -1):
                raise _refuse_size("a power")
            return _exact(base.exact**k)
    else:
        n = 10**exponent.hi
    if base.hi == NONE:  # the base is 0
        return _unknown(NONE, NONE)
    reach = max(base.hi, -base.lo if base.lo != NONE else base.digits)
    if abs(n) * max(reach, 1.0) > MAX_DIGITS or abs(n) * base.digits > MAX_DIGITS:
        raise _refuse_size("a power")
    if exponent.exact is not None and n >= 0:
        hi, lo = n * base.hi, n * base.lo
    elif exponent.exact is not None:
        hi = -n * base.lo if base.lo != NONE else math.inf
        lo = -n * base.hi
    else:
        hi, lo = abs(n) * reach, NONE
    return _unknown(hi, lo, abs(n) * base.digits + 1, base.has_units)


def _call(node: ast.Call, depth: int, source: str) -> Bound:
    if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
        name = node.func.id if isinstance(node.func, ast.Name) else type(node.func).__name__
        raise _refuse(f"call of {name!r}")
    function = FUNCTIONS[node.func.id]
    if node.keywords:
        raise _refuse("keyword arguments")
    if any(isinstance(a, ast.Starred) for a in node.args):
        raise _refuse("starred arguments")
    items: list[ast.expr] = list(node.args)
    if function.lists and len(items) == 1 and isinstance(items[0], ast.List):
        items = list(items[0].elts)
        if len(items) > MAX_LIST:
            raise UnsafeExpression(f"list longer than {MAX_LIST}")
    low, high = function.arity
    if len(items) < low or (high != -1 and len(items) > high):
        wanted = f"{low}" if low == high else f"{low} or more" if high == -1 else f"{low}-{high}"
        raise UnsafeExpression(f"{function.name} takes {wanted} argument(s), got {len(items)}")
    args = [_check(a, depth + 1, source) for a in items]
    return _limit(function.rule(args, function.name), f"{function.name}(...)")


# --- building (evaluates: run under a time limit) ------------------------------------------------


def build_expression(text: str) -> Any:
    """The sympy expression of an already checked ``text``."""
    import sympy  # noqa: F401  (imported here: the input check never needs sympy)

    tree = _parse(text)
    return _build(tree, text.strip())


def _build(node: ast.AST, source: str) -> Any:
    import sympy
    from sympy.physics import units

    if isinstance(node, ast.Constant):
        value = _literal(node, source)
        return sympy.Rational(value.numerator, value.denominator)
    if isinstance(node, ast.Name):
        if node.id in CONSTANTS:
            return {"pi": sympy.pi, "E": sympy.E}[node.id]
        name = UNITS[node.id]
        return getattr(units, "atomic_mass_constant" if name == "dalton" else name)
    if isinstance(node, ast.UnaryOp):
        operand = _build(node.operand, source)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp):
        left, right = _build(node.left, source), _build(node.right, source)
        op = node.op
        if isinstance(op, ast.Add):
            return left + right
        if isinstance(op, ast.Sub):
            return left - right
        if isinstance(op, ast.Mult):
            return left * right
        if isinstance(op, ast.Div):
            return left / right
        if isinstance(op, ast.Mod):
            return sympy.Mod(left, right)
        return left**right
    assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    function = FUNCTIONS[node.func.id]
    items: list[ast.expr] = list(node.args)
    if function.lists and len(items) == 1 and isinstance(items[0], ast.List):
        items = list(items[0].elts)
    return apply_function(function.name, [_build(a, source) for a in items])


def stated_precision(text: str) -> tuple[Fraction, Fraction] | None:
    """``(number, half unit of its last digit)`` when ``text`` is a decimal literal, possibly
    signed and times units (``3.3333``, ``-1.5e3*meter``); None otherwise (exact values).

    Integers state whole units (``41``: 0.5). A decimal of at most 17 significant digits may
    have been printed from a double (``repr(math.sqrt(2))``), so its tolerance is never finer
    than a double's relative spacing, 2^-52. This is the default tolerance of the reviewer.

    >>> stated_precision("3.3333")
    (Fraction(33333, 10000), Fraction(1, 20000))
    """
    tree = _parse(text)
    sign = 1
    node: ast.AST = tree
    while (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, (ast.Mult, ast.Div))
        and _is_units(node.right)
    ):
        node = node.left
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign = -1 if isinstance(node.op, ast.USub) else 1
        node = node.operand
    if (
        not isinstance(node, ast.Constant)
        or isinstance(node.value, bool)
        or not isinstance(node.value, (int, float))
    ):
        return None
    if isinstance(node.value, int):
        return Fraction(sign * node.value), Fraction(1, 2)
    segment = ast.get_source_segment(text.strip(), node) or repr(node.value)
    number = Decimal(segment)
    _, digits, exponent = number.as_tuple()
    assert isinstance(exponent, int)
    value = Fraction(number)
    half_unit = Fraction(1, 2) * Fraction(10) ** exponent
    if len(digits) <= DOUBLE_DIGITS:  # perhaps printed from a double: never finer than one
        half_unit = max(half_unit, abs(value) * DOUBLE_EPSILON)
    return sign * value, half_unit


def _is_units(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return node.id in UNITS
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        return _is_units(node.left) and isinstance(node.right, (ast.Constant, ast.UnaryOp))
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
        return _is_units(node.left) and _is_units(node.right)
    return False
