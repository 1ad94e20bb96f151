"""Safe parsing of recorded calculations into sympy expressions.

Memory files come from other people, and sympy's ``sympify``/``parse_expr`` evaluate Python
code. This module never calls them: it parses the text with :func:`ast.parse` (which only
parses), walks the tree against a whitelist of node types, and builds the sympy expression
itself. Allowed: integer and decimal literals, ``+ - * / ** %``, unary ``+ -``, parentheses,
the constants ``pi`` and ``E``, and calls of a few named functions with positional
arguments (``sqrt``, ``exp``, ``log``, ``sin``, ``cos``, ``tan``, ``Abs``, ``floor``,
``ceiling``, ``factorial``, ``binomial``, ``Rational``, ``Min``, ``Max``). Everything else
(attributes, subscripts, strings, lambdas, comprehensions, keywords, other names, dunder
tricks) is refused with :class:`UnsafeExpression`. Sizes are bounded (text length, nesting,
exponents, factorial arguments) so that a hostile expression cannot exhaust the machine.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable

import sympy

from theory.errors import InputError

MAX_LENGTH = 1000
MAX_DEPTH = 50
MAX_EXPONENT = 10_000
MAX_FACTORIAL = 10_000
MAX_RESULT_BITS = 200_000


class UnsafeExpression(InputError):
    """An expression outside the whitelist (or too large to evaluate safely)."""


FUNCTIONS: dict[str, Callable[..., sympy.Expr]] = {
    "sqrt": sympy.sqrt, "exp": sympy.exp, "log": sympy.log, "sin": sympy.sin,
    "cos": sympy.cos, "tan": sympy.tan, "Abs": sympy.Abs, "abs": sympy.Abs,
    "floor": sympy.floor, "ceiling": sympy.ceiling, "factorial": sympy.factorial,
    "binomial": sympy.binomial, "Rational": sympy.Rational, "Min": sympy.Min, "Max": sympy.Max,
}
CONSTANTS: dict[str, sympy.Expr] = {"pi": sympy.pi, "E": sympy.E}
BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
          ast.Div: operator.truediv, ast.Mod: operator.mod}


def parse_expression(text: str) -> sympy.Expr:
    """The sympy expression of ``text``, or :class:`UnsafeExpression`; nothing is executed."""
    if not isinstance(text, str):
        raise UnsafeExpression("an expression must be a string")
    if len(text) > MAX_LENGTH:
        raise UnsafeExpression(f"expression longer than {MAX_LENGTH} characters")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as error:
        raise UnsafeExpression(f"not an arithmetic expression ({error.msg})") from None
    return _build(tree.body, 0)


def _refuse(node: ast.AST, what: str | None = None) -> UnsafeExpression:
    return UnsafeExpression(f"refused {what or type(node).__name__} in expression "
                            f"(only arithmetic on numbers and whitelisted functions)")


def _build(node: ast.AST, depth: int) -> sympy.Expr:
    if depth > MAX_DEPTH:
        raise UnsafeExpression(f"expression nested deeper than {MAX_DEPTH}")
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _refuse(node, f"constant {type(value).__name__}")
        if isinstance(value, float):
            return sympy.Float(repr(value))
        return sympy.Integer(value)
    if isinstance(node, ast.Name):
        if node.id in CONSTANTS:
            return CONSTANTS[node.id]
        raise _refuse(node, f"name {node.id!r}")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        operand = _build(node.operand, depth + 1)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp):
        left = _build(node.left, depth + 1)
        right = _build(node.right, depth + 1)
        if isinstance(node.op, ast.Pow):
            if not right.is_number or abs(sympy.N(right)) > MAX_EXPONENT:
                raise UnsafeExpression(f"exponent larger than {MAX_EXPONENT}")
            if left.is_Rational and right.is_number:
                bits = max(int(left.p).bit_length(), int(left.q).bit_length())
                if bits * abs(float(sympy.N(right))) > MAX_RESULT_BITS:
                    raise UnsafeExpression(f"power larger than {MAX_RESULT_BITS} bits")
            return left ** right
        function = BINARY.get(type(node.op))
        if function is None:
            raise _refuse(node, f"operator {type(node.op).__name__}")
        if isinstance(node.op, (ast.Div, ast.Mod)) and right == 0:
            raise UnsafeExpression("division by zero")
        return function(left, right)
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            name = node.func.id if isinstance(node.func, ast.Name) else type(node.func).__name__
            raise _refuse(node, f"call of {name!r}")
        if node.keywords:
            raise _refuse(node, "keyword arguments")
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise _refuse(node, "starred arguments")
        args = [_build(a, depth + 1) for a in node.args]
        if node.func.id in ("factorial", "binomial") and any(
                not a.is_number or abs(sympy.N(a)) > MAX_FACTORIAL for a in args):
            raise UnsafeExpression(f"{node.func.id} argument larger than {MAX_FACTORIAL}")
        try:
            return FUNCTIONS[node.func.id](*args)
        except (TypeError, ValueError) as error:
            raise UnsafeExpression(f"bad call of {node.func.id}: {error}") from None
    raise _refuse(node)


def same_value(a: sympy.Expr, b: sympy.Expr, rel_tol: float = 1e-9) -> bool:
    """Exact equality for rationals, relative tolerance otherwise."""
    if a.is_Rational and b.is_Rational:
        return bool(a == b)
    try:
        x, y = complex(sympy.N(a, 30)), complex(sympy.N(b, 30))
    except (TypeError, ValueError):
        return bool(sympy.simplify(a - b) == 0)
    return abs(x - y) <= rel_tol * max(1.0, abs(y))
