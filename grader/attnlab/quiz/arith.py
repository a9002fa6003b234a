"""Safe arithmetic: what a student types (``e/(2e+1)``) and what an author writes (``T**2``).

Expressions are parsed with Python's ``ast`` and evaluated by walking a
whitelist: numbers, names bound by the caller, + - * / ** (also ^), unary
signs, parentheses and the functions sqrt, exp, log (natural), sin, cos, floor.
Nothing is ever passed to ``eval``. An author's ``where:`` condition compares
such expressions (``L_q != L_k``, ``0 <= h < h_q``); what a student types never
does. Every value is bounded: a whole number
beyond 2^1100 (further than any float reaches), a float that overflows and a
power whose result would be that large before it is computed are "too large",
so no expression costs more than microseconds. Students may write implicit products
(``2e``, ``2pi``, ``3(1+e)``); a number directly followed by ``e`` and digits
is scientific notation (``1e5``), but ``2e+1`` is 2·e + 1, as in the lessons.
"""

from __future__ import annotations

import ast
import math
import operator
import re

CONSTANTS = {"e": math.e, "pi": math.pi, "π": math.pi}
FUNCTIONS = {"sqrt": math.sqrt, "exp": math.exp, "log": math.log, "ln": math.log, "sin": math.sin, "cos": math.cos, "floor": math.floor}
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv, ast.Pow: operator.pow}
_UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg}
MAX_EXPONENT = 1000
MAX_LENGTH = 500
MAX_BITS = 1100
"""Whole numbers stay below 2^1100: beyond any float (2^1024), and cheap to compute with."""
MAX_DEPTH = 100
TOO_LARGE = "too large"

_TOKEN = re.compile(r"\s*(?:(?P<number>(?:\d+\.?\d*|\.\d+)(?:e\d+)?)|(?P<name>[A-Za-zπ_]\w*)|(?P<op>\*\*|[-+*/^(),\[\]]))")


class ExpressionError(ValueError):
    """The text is not an arithmetic expression we accept; the message says why."""


def _tokens(text: str) -> list[tuple[str, str]]:
    tokens, position = [], 0
    text = text.strip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if not match or match.end() == position:
            raise ExpressionError(f"unexpected `{text[position:].strip()[:10]}`")
        kind = match.lastgroup
        value = match.group(kind)
        if kind == "name" and value not in CONSTANTS and value not in FUNCTIONS and not value.isidentifier():
            raise ExpressionError(f"unknown name {value!r}")
        if kind == "number" and re.fullmatch(r"\d+\.?\d*e", value):
            tokens += [("number", value[:-1]), ("name", "e")]
        else:
            tokens.append((kind, value))
        position = match.end()
    return tokens


def to_python(text: str) -> str:
    """Rewrite student arithmetic as a Python expression: implicit products made explicit, ^ as **."""
    if len(text) > MAX_LENGTH:
        raise ExpressionError("too long")
    out: list[str] = []
    previous = None  # kind of the previous token, for implicit multiplication
    for kind, value in _tokens(text):
        # "2e", "2pi", "3(1+e)", "(a)(b)": a value followed by a value is a product.
        if previous in ("number", "constant", "close") and (kind in ("number", "name") or value == "("):
            out.append("*")
        if kind == "op":
            out.append("**" if value == "^" else value)
            previous = "close" if value in (")", "]") else "op"
        elif kind == "name":
            out.append("pi" if value == "π" else value)
            previous = "function" if value in FUNCTIONS else "constant"
        else:
            out.append(value)
            previous = "number"
    return " ".join(out)


def evaluate(text: str, names: dict[str, float] | None = None) -> float | tuple:
    """Evaluate ``text``; a comma-separated or bracketed list gives a tuple of values."""
    names = {**CONSTANTS, **(names or {})}
    try:
        tree = ast.parse(to_python(text), mode="eval")
    except SyntaxError:
        raise ExpressionError("not a complete expression") from None
    return _eval(tree.body, names, 0)


_COMPARISON = re.compile(r"(<=|>=|==|!=|<|>)")
_COMPARE = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne}


def condition_parts(text: str) -> tuple[list[str], list[str]]:
    """(sides, operators) of a comparison such as ``0 <= h < h_q``; each side a complete expression."""
    parts = _COMPARISON.split(text)
    sides, operators = [p.strip() for p in parts[0::2]], parts[1::2]
    if not operators:
        raise ExpressionError("a condition compares values with <, <=, >, >=, == or !=")
    for side in sides:
        if not side:
            raise ExpressionError("each side of a comparison needs a value")
        try:
            ast.parse(to_python(side), mode="eval")
        except SyntaxError:
            raise ExpressionError(f"`{side}` is not a complete expression") from None
    return sides, operators


def names_in(text: str) -> set[str]:
    """The names an expression or condition uses besides constants and functions (its parameters)."""
    return {value for side in _COMPARISON.split(text)[0::2] for kind, value in _tokens(side) if kind == "name" and value not in CONSTANTS and value not in FUNCTIONS}


def holds(text: str, names: dict[str, float]) -> bool:
    """Whether the condition ``text`` holds for ``names``; a chain (``a < b < c``) holds pairwise."""
    sides, operators = condition_parts(text)
    values = []
    for side in sides:
        value = evaluate(side, names)
        if isinstance(value, tuple):
            raise ExpressionError(f"`{side}` is a list; a condition compares numbers")
        values.append(value)
    return all(_COMPARE[op](left, right) for op, left, right in zip(operators, values, values[1:]))


def unknown_name(name: str, known) -> str:
    """"unknown name `sqr` (did you mean `sqrt`?)": the closest known name, when one is close."""
    import difflib

    close = difflib.get_close_matches(name, [k for k in known if k != "π"], n=1, cutoff=0.6)
    return f"unknown name `{name}`" + (f" (did you mean `{close[0]}`?)" if close else "")


def _bounded(value):
    """``value`` if it is a size we compute with; "too large" otherwise."""
    if isinstance(value, int) and value.bit_length() > MAX_BITS:
        raise ExpressionError(TOO_LARGE)
    if isinstance(value, float) and math.isinf(value):
        raise ExpressionError(TOO_LARGE)
    return value


def _power_too_large(base, exponent) -> bool:
    """Whether ``base ** exponent`` would pass the bound, judged before computing it."""
    if not isinstance(exponent, (int, float)) or not isinstance(base, (int, float)) or abs(base) <= 1 or exponent <= 0:
        return False
    return exponent * math.log2(abs(base)) > MAX_BITS


def _eval(node, names, depth):
    if depth > MAX_DEPTH:
        raise ExpressionError("nested too deeply")
    depth += 1
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return _bounded(node.value)
    if isinstance(node, ast.Name):
        if node.id in names:
            return names[node.id]
        raise ExpressionError(unknown_name(node.id, [*names, *FUNCTIONS]))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left, names, depth), _eval(node.right, names, depth)
        if isinstance(node.op, ast.Pow) and isinstance(right, (int, float)) and (abs(right) > MAX_EXPONENT or _power_too_large(left, right)):
            raise ExpressionError(TOO_LARGE)
        try:
            return _bounded(_BINARY[type(node.op)](left, right))
        except ZeroDivisionError:
            raise ExpressionError("division by zero") from None
        except OverflowError:
            raise ExpressionError(TOO_LARGE) from None
        except TypeError:
            raise ExpressionError("the value is out of range") from None
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        try:
            return _UNARY[type(node.op)](_eval(node.operand, names, depth))
        except TypeError:
            raise ExpressionError("the value is out of range") from None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id not in FUNCTIONS:
        raise ExpressionError(unknown_name(node.func.id, FUNCTIONS))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS and len(node.args) == 1 and not node.keywords:
        argument = _eval(node.args[0], names, depth)
        try:
            return _bounded(FUNCTIONS[node.func.id](argument))
        except OverflowError:
            raise ExpressionError(TOO_LARGE) from None
        except (ValueError, TypeError):
            raise ExpressionError(f"{node.func.id} of that value is undefined") from None
    if isinstance(node, (ast.Tuple, ast.List)):
        return tuple(_eval(item, names, depth) for item in node.elts)
    raise ExpressionError("only numbers, + - * / ^, parentheses and sqrt, exp, log are allowed")
