"""What a student types, read as numbers: the same reading in practice, in an exam and in ``quiz grade``.

Numbers are numbers: ``0.12``, ``.5``, ``5.``, scientific notation (``1.2e-1``, ``1.2E-1``,
``1e5``), a fraction of two numbers (``1/3``), a sign (``-``, ``+`` or the Unicode minus ``−``),
spaces around them and a trailing comma. A list of numbers is separated by commas, spaces or
semicolons (one kind in a list), in brackets or not; a matrix's rows by semicolons or new lines
(or written ``[[1, 0], [0, 1]]``). Anything else is arithmetic, read only where the question allows
it (``expressions: true``), and then by ``arith``, which refuses a text that reads two ways. A
comma between digits (``0,05``) is a decimal comma or a thousands separator, and which one cannot
be known: it is refused, saying so. Every refusal is an ``AnswerFormatError`` whose message is the
reason, in a student's words; nothing is ever read one way in silence.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from attnlab.quiz.arith import TOO_LARGE, ExpressionError, evaluate


class AnswerFormatError(ValueError):
    """The text is not an answer of this kind; the message says why."""


_SIGNS = str.maketrans({"\u2212": "-", "\ufe63": "-", "\uff0d": "-", **dict.fromkeys("\u00a0\u2009\u202f\u2007", " ")})
_LITERAL = r"(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_NUMBER = re.compile(rf"([-+]?)({_LITERAL})(?:/({_LITERAL}))?")
_DECIMAL_COMMA = re.compile(r"\d,\d")
_LEADING_ZERO = re.compile(r"(?<![\d.])\d+,0\d")
LARGEST_EXPONENT = 400
"""A literal beyond 10^400 is "too large" before any arithmetic is done with it."""
NUMBER_EXAMPLES = "0.12, .5, 1.2e-1 or 1/3"


def clean(text: str) -> str:
    """The text with Unicode minus signs as ``-`` and unusual spaces as spaces, stripped."""
    return str(text).translate(_SIGNS).strip()


def _comma_inside(text: str) -> AnswerFormatError:
    found = re.search(r"\d+,\d+", text).group(0)
    point = found.replace(",", ".")
    return AnswerFormatError(
        f"`{found}` has a comma inside a number: write decimals with a point ({point}), and no thousands separator"
    )


def _literal(text: str) -> Fraction:
    value = Decimal(text)
    if value and value.adjusted() > LARGEST_EXPONENT:
        raise AnswerFormatError(TOO_LARGE)
    return Fraction(value) if not value or value.adjusted() >= -LARGEST_EXPONENT else Fraction(0)


def _plain_number(text: str):
    """A number, or a fraction of two, with its sign: an int when whole, else a float."""
    match = _NUMBER.fullmatch(re.sub(r"\s*/\s*", "/", text))
    if not match:
        return None
    sign, top, bottom = match.groups()
    try:
        value = _literal(top)
        if bottom is not None:
            below = _literal(bottom)
            if not below:
                raise AnswerFormatError("division by zero")
            value /= below
    except InvalidOperation:
        return None
    value = -value if sign == "-" else value
    if value.denominator == 1 and abs(value) < 2**63:
        return int(value)
    try:
        return float(value)
    except OverflowError:
        raise AnswerFormatError(TOO_LARGE) from None


def number(text: str, expressions: bool = False):
    """One number as typed (``1.2e-1``, ``1/3``, ``−0.5``, ``0.5,``); arithmetic where ``expressions``."""
    text = clean(text)
    if text.endswith(","):
        text = text[:-1].rstrip()
    if not text:
        raise AnswerFormatError("no number given")
    if _DECIMAL_COMMA.search(text):
        raise _comma_inside(text)
    value = _plain_number(text)
    if value is not None:
        return value
    if not expressions:
        shown = text if len(text) <= 20 else text[:17] + "..."
        raise AnswerFormatError(f"`{shown}` is not a number: this question takes a number, such as {NUMBER_EXAMPLES}")
    try:
        value = evaluate(text)
    except ExpressionError as error:
        raise AnswerFormatError(str(error)) from None
    if isinstance(value, tuple):
        raise AnswerFormatError(f"expected one number, got {len(value)}")
    return value


def _unbracketed(text: str) -> str:
    if len(text) >= 2 and text[0] + text[-1] in ("[]", "()"):
        return text[1:-1].strip()
    return text


def _without_trailing(text: str, separators: str = ",;") -> str:
    while text and text[-1] in separators:
        text = text[:-1].rstrip()
    return text


def number_list(text: str, expressions: bool = False) -> list:
    """A list of numbers: ``0.1, 0.2``, ``0.1 0.2``, ``[0.1; 0.2]``, ``(0.1, 0.2,)``."""
    text = _without_trailing(_unbracketed(_without_trailing(clean(text))))
    if not text:
        raise AnswerFormatError("no numbers given")
    if _LEADING_ZERO.search(text) or (";" in text and _DECIMAL_COMMA.search(text)):
        raise _comma_inside(text)
    if expressions and not re.fullmatch(r"[-+\d.eE/,;\s]*", text):
        return _expression_list(text)
    separator = ";" if ";" in text else "," if "," in text else None
    parts = [p.strip() for p in text.split(separator)] if separator else _words(text)
    if any(not p for p in parts):
        raise AnswerFormatError(f"an empty entry between two {'semicolons' if separator == ';' else 'commas'}")
    return [_entry(p, expressions) for p in parts]


def _words(text: str) -> list[str]:
    """Numbers side by side, a fraction written ``1 / 3`` kept whole."""
    return re.sub(r"\s*/\s*", "/", text).split()


def _entry(text: str, expressions: bool):
    if re.search(r"\s", re.sub(r"\s*/\s*", "/", text)) and not expressions:
        raise AnswerFormatError(
            f"`{text}` is more than one number: separate the numbers one way (commas, spaces or semicolons)"
        )
    return number(text, expressions)


def _expression_list(text: str) -> list:
    """Arithmetic entries: split at commas or semicolons; else each word, if each reads alone (``e 1``),
    else the whole as one expression (``e / (2e + 1)``)."""
    for separator in (";", ","):
        if separator in text:
            return [number(p, True) for p in _top_level_split(text, separator)]
    words = text.split()
    if len(words) > 1:
        try:
            return [number(word, True) for word in words]
        except AnswerFormatError:
            pass
    return [number(text, True)]


def _top_level_split(text: str, separator: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for character in text:
        depth += character in "(["
        depth -= character in ")]"
        if character == separator and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += character
    parts.append(current)
    if any(not p.strip() for p in parts):
        raise AnswerFormatError(f"an empty entry between two {'semicolons' if separator == ';' else 'commas'}")
    return parts


def number_rows(text: str, expressions: bool = False) -> list[list]:
    """A matrix: rows by ``;`` or new lines (entries by commas or spaces), or ``[[1, 0], [0, 1]]``; a
    matrix of one row ends it with ``;`` (``1 0;``), as the terminal writes one typed one row a line."""
    rowed = ";" in text or "\n" in clean(text)
    text = _without_trailing(clean(text))
    if _LEADING_ZERO.search(text):
        raise _comma_inside(text)
    inner = _unbracketed(text)
    if re.match(r"^[\[(]", inner) and re.search(r"[\])]$", inner):  # [[1, 0], [0, 1]] or [1, 0], [0, 1]
        rows = re.findall(r"[\[(]([^\[\]()]*)[\])]", inner)
        leftover = re.sub(r"[\[(][^\[\]()]*[\])]", "", inner)
        if not rows or leftover.replace(",", "").replace(";", "").strip():
            raise AnswerFormatError("expected rows of numbers, each in brackets, or ; between the rows")
    elif rowed:
        rows = [r for r in re.split(r"[;\n]", text) if r.strip()]
    else:
        raise AnswerFormatError("expected rows of numbers: one row a line, or ; between the rows")
    value = [_row(row, expressions) for row in rows]
    if len({len(r) for r in value}) != 1:
        raise AnswerFormatError("every row needs the same number of entries")
    return value


def _row(text: str, expressions: bool) -> list:
    text = _without_trailing(_unbracketed(text.strip()), ",")
    if expressions and not re.fullmatch(r"[-+\d.eE/,\s]*", text):
        return [number(p, True) for p in (_top_level_split(text, ",") if "," in text else text.split())]
    parts = [p.strip() for p in text.split(",")] if "," in text else _words(text)
    if not parts or any(not p for p in parts):
        raise AnswerFormatError("an empty entry in a row")
    return [_entry(p, expressions) for p in parts]


def whole_numbers(text: str) -> tuple[int, ...]:
    """A shape: whole numbers separated by ``x``, ``×``, commas or spaces, in brackets or not."""
    text = _without_trailing(_unbracketed(_without_trailing(clean(text))))
    parts = [p for p in re.split(r"\s*[x×X*,]\s*|\s+", text)]
    if not text or any(not p for p in parts):
        raise AnswerFormatError("expected whole numbers, one per axis, such as (2, 3, 4) or 2x3x4")
    values = []
    for part in parts:
        value = _plain_number(part)
        if not isinstance(value, int) or value < 0:
            raise AnswerFormatError(f"`{part}` is not a size: expected whole numbers, one per axis")
        values.append(value)
    return tuple(values)
