"""Safe arithmetic: what a student types (``e/(2e+1)``) and what an author writes (``T**2``).

Expressions are parsed with Python's ``ast`` and evaluated by walking a
whitelist: numbers, names bound by the caller, + - * / ** (also ^), unary
signs, parentheses and the functions sqrt, exp, log (natural), sin, cos, floor.
Nothing is ever passed to ``eval``. An author's ``where:`` condition compares
such expressions (``L_q != L_k``, ``0 <= h < h_q``); what a student types never
does. Every value is bounded: a whole number
beyond 2^1100 (further than any float reaches), a float that overflows and a
power whose result would be that large before it is computed are "too large",
so no expression costs more than microseconds. A number followed at once by ``e`` or
``E`` and (signed) digits is scientific notation, always (``1.2e-1`` is 0.12, ``2e+1`` is 20);
otherwise a value followed by a value is a product (``2e``, ``2pi``, ``3(1+e)``), but two numbers
side by side (``25 0``) are refused, never multiplied. An expression
that uses Euler's ``e`` and also writes ``2e+1`` could mean either, so it is refused with both
readings named rather than read one way in silence. Authors may index a list parameter
(``s[0]``, ``y[perm[r]]``) and round (``round(x, 2)``); ``decimals`` evaluates as a person
who rounds every intermediate result does.
"""

from __future__ import annotations

import ast
import functools
import math
import operator
import re

CONSTANTS = {"e": math.e, "pi": math.pi, "π": math.pi}
FUNCTIONS = {
    "sqrt": math.sqrt,
    "exp": math.exp,
    "log": math.log,
    "ln": math.log,
    "sin": math.sin,
    "cos": math.cos,
    "floor": math.floor,
}
ROUND = "round"
"""``round(x, n)``: two arguments, so it is not in ``FUNCTIONS`` (whose functions take one)."""
_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}
_UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg}
MAX_EXPONENT = 1000
MAX_LENGTH = 500
MAX_BITS = 1100
"""Whole numbers stay below 2^1100: beyond any float (2^1024), and cheap to compute with."""
MAX_DEPTH = 100
TOO_LARGE = "too large"

_TOKEN = re.compile(
    r"\s*(?:(?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)|(?P<name>[A-Za-zπ_]\w*)|(?P<op>\*\*|[-+*/^(),\[\]]))"
)
_SIGNED_EXPONENT = re.compile(r"\de[-+]\d")


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
        tokens.append((kind, value))
        position = match.end()
    euler = any(kind == "name" and value == "e" for kind, value in tokens)
    both = next((value for kind, value in tokens if kind == "number" and _SIGNED_EXPONENT.search(value)), None)
    if euler and both:
        mantissa, _, exponent = both.partition("e")
        raise ExpressionError(
            f"`{both}` reads two ways here, as {mantissa}×10^{int(exponent)} or as"
            f" {mantissa}·e {exponent[0]} {exponent[1:]} with Euler's e:"
            f" write {mantissa}E{exponent} for the first, {mantissa}*e {exponent[0]} {exponent[1:]} for the second"
        )
    return tokens


def to_python(text: str) -> str:
    """Rewrite student arithmetic as a Python expression: implicit products made explicit, ^ as **."""
    if len(text) > MAX_LENGTH:
        raise ExpressionError("too long")
    out: list[str] = []
    previous = None  # kind of the previous token, for implicit multiplication
    for kind, value in _tokens(text):
        if previous == "number" and kind == "number":  # "25 0" is two numbers, never read as their product
            raise ExpressionError(
                f"two numbers side by side (`{out[-1]} {value}`): separate them with a comma, or write the operation"
            )
        # "2e", "2pi", "3(1+e)", "(a)(b)": a value followed by a value is a product.
        if previous in ("number", "constant", "close") and (kind in ("number", "name") or value == "("):
            out.append("*")
        if kind == "op":
            out.append("**" if value == "^" else value)
            previous = "close" if value in (")", "]") else "op"
        elif kind == "name":
            out.append("pi" if value == "π" else value)
            previous = "function" if value in FUNCTIONS or value == ROUND else "constant"
        else:
            out.append(value)
            previous = "number"
    return " ".join(out)


def evaluate(text: str, names: dict | None = None, decimals: int | None = None) -> float | tuple:
    """Evaluate ``text``; a comma-separated or bracketed list gives a tuple of values.

    ``names`` may bind lists (indexed as ``s[0]``); with ``decimals``, every constant, function
    and operation is rounded to that many decimals as it is computed, as by hand."""
    names = {**CONSTANTS, **{k: _as_tuple(v) for k, v in (names or {}).items()}}
    return _eval(_parsed(text).body, names, 0, decimals)


@functools.lru_cache(maxsize=256)
def _parsed(text: str) -> ast.Expression:
    """The tree of ``text``, parsed once: an author's ``where:`` is evaluated at every draw of every
    student, and ``_eval`` only reads the tree."""
    try:
        return ast.parse(to_python(text), mode="eval")
    except SyntaxError:
        raise ExpressionError("not a complete expression") from None


def _as_tuple(value):
    return tuple(_as_tuple(x) for x in value) if isinstance(value, (list, tuple)) else value


def round_half_away(value, decimals: int):
    """``value`` rounded to ``decimals`` as people round (halves away from zero, in decimal)."""
    from decimal import ROUND_HALF_UP, Decimal

    if isinstance(value, tuple):
        return tuple(round_half_away(x, decimals) for x in value)
    return float(Decimal(repr(float(value))).quantize(Decimal(1).scaleb(-int(decimals)), ROUND_HALF_UP))


def _rounded(value, decimals):
    return value if decimals is None or isinstance(value, bool) else round_half_away(value, decimals)


_COMPARISON = re.compile(r"(<=|>=|==|!=|<|>)")
_COMPARE = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}


@functools.lru_cache(maxsize=256)
def condition_parts(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
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
    return tuple(sides), tuple(operators)


def names_in(text: str) -> set[str]:
    """The names an expression or condition uses besides constants and functions (its parameters)."""
    known = {*CONSTANTS, *FUNCTIONS, ROUND}
    tokens = [token for side in _COMPARISON.split(text)[0::2] for token in _tokens(side)]
    return {value for kind, value in tokens if kind == "name" and value not in known}


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
    """ "unknown name `sqr` (did you mean `sqrt`?)": the closest known name, when one is close."""
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


def _eval(node, names, depth, decimals=None):
    if depth > MAX_DEPTH:
        raise ExpressionError("nested too deeply")
    depth += 1

    def sub(child):
        return _eval(child, names, depth, decimals)

    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return _bounded(node.value)
    if isinstance(node, ast.Name):
        if node.id in names:
            return _rounded(names[node.id], decimals) if node.id in CONSTANTS else names[node.id]
        raise ExpressionError(unknown_name(node.id, [*names, *FUNCTIONS]))
    if isinstance(node, ast.Subscript):
        return _index(sub(node.value), sub(node.slice))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = sub(node.left), sub(node.right)
        if (
            isinstance(node.op, ast.Pow)
            and isinstance(right, (int, float))
            and (abs(right) > MAX_EXPONENT or _power_too_large(left, right))
        ):
            raise ExpressionError(TOO_LARGE)
        try:
            return _rounded(_bounded(_BINARY[type(node.op)](left, right)), decimals)
        except ZeroDivisionError:
            raise ExpressionError("division by zero") from None
        except OverflowError:
            raise ExpressionError(TOO_LARGE) from None
        except TypeError:
            raise ExpressionError("the value is out of range") from None
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        try:
            return _UNARY[type(node.op)](sub(node.operand))
        except TypeError:
            raise ExpressionError("the value is out of range") from None
    rounds = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == ROUND
    if rounds and len(node.args) == 2 and not node.keywords:
        value, places = sub(node.args[0]), sub(node.args[1])
        if isinstance(value, tuple) or isinstance(places, tuple) or places != int(places) or not 0 <= places <= 15:
            raise ExpressionError("round(x, n) rounds a number to n decimals, n from 0 to 15")
        return round_half_away(value, int(places))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id not in FUNCTIONS:
        raise ExpressionError(unknown_name(node.func.id, FUNCTIONS))
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in FUNCTIONS
        and len(node.args) == 1
        and not node.keywords
    ):
        argument = sub(node.args[0])
        try:
            return _rounded(_bounded(FUNCTIONS[node.func.id](argument)), decimals)
        except OverflowError:
            raise ExpressionError(TOO_LARGE) from None
        except (ValueError, TypeError):
            raise ExpressionError(f"{node.func.id} of that value is undefined") from None
    if isinstance(node, (ast.Tuple, ast.List)):
        return tuple(sub(item) for item in node.elts)
    raise ExpressionError("only numbers, + - * / ^, parentheses and sqrt, exp, log are allowed")


def _index(value, index):
    """``value[index]`` of a list parameter, with a whole-number index inside it."""
    if not isinstance(value, tuple):
        raise ExpressionError("only a list can be indexed")
    whole = not isinstance(index, (tuple, bool)) and index == int(index)
    if not whole or not -len(value) <= index < len(value):
        raise ExpressionError(f"index {index} is outside a list of {len(value)}")
    return value[int(index)]
