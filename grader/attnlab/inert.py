"""Student text made inert for where it is shown: a terminal, a spreadsheet, Markdown.

What a student's code says (its exceptions' messages, what it prints) and what a student
names (a folder, an id in an answers file) reaches the instructor's terminal, the CSV files
opened in a spreadsheet, and Gradescope's Markdown. Each function here gives text that can
only be read there, never obeyed: no escape sequence moves the cursor or writes the
clipboard, no cell is a formula, no line becomes a heading, link, image or HTML.
"""

from __future__ import annotations

import csv
import re
from typing import Iterable, TextIO

# ECMA-48 sequences, 7-bit (ESC ...) and 8-bit (C1): CSI up to its final byte; OSC, DCS, SOS,
# PM and APC up to their terminator (BEL or ST), or the end of the line when a student leaves
# one open (the text after the line is not theirs to hide); any other escape and its final byte.
_ESCAPE_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]?"
)
# What is left that a terminal obeys rather than shows: C0 but tab and newline, DEL, C1, and
# the bidirectional controls that make text read in another order than it is (U+202E, ...).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def terminal_text(text: str) -> str:
    """``text`` with escape sequences and control characters taken out; line ends become ``\\n``.

    A carriage return that would draw over a line ("✓ all hidden tests passed") ends it instead.
    """
    if not _CONTROL.search(text):
        return text
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL.sub("", _ESCAPE_SEQUENCE.sub("", text))


# OWASP's list of what makes a spreadsheet read a cell as a formula (ASVS adds NUL); a cell
# that starts with one after blanks is treated alike, as some spreadsheets skip the blanks.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n", "\0")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def spreadsheet_cell(value):
    """A CSV cell a spreadsheet shows as text: a string that would start a formula gets a ``'``.

    Numbers, and strings that are only a number (``-2.5``), stay numbers."""
    if not isinstance(value, str):
        return value
    if _NUMBER.fullmatch(value):
        return value
    text = terminal_text(value)
    if text.startswith(_FORMULA_START) or text.lstrip().startswith(_FORMULA_START):
        return "'" + text
    return text


def write_csv(stream: TextIO, rows: Iterable[Iterable]) -> None:
    """Write ``rows`` as CSV with every cell made inert; every text cell is quoted, so that a
    spreadsheet that splits on ``;`` (its locale's separator) cannot start a formula mid-cell."""
    writer = csv.writer(stream, quoting=csv.QUOTE_NONNUMERIC)
    for row in rows:
        writer.writerow([spreadsheet_cell(value) for value in row])


def markdown_literal(text: str) -> str:
    """``text`` as a Markdown fenced code block that no line of it can close or escape.

    CommonMark closes a fence only with a run of at least as many backticks as opened it,
    so the fence is one longer than the longest run inside."""
    body = terminal_text(text).rstrip("\n")  # a NUL or CR would be changed by the parser, not shown
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{body}\n{fence}"


_MARKDOWN_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
# What can start markup inside a line (emphasis, code, links, images, HTML, entities, strikethrough,
# tables, math, a heading's closing #s): escaped always. The rest of ASCII's punctuation is left
# as it is ("softmax.py", not "softmax\.py"), but where an autolinker could make a link of it.
# An underscore between letters or digits (scaled_dot_product) cannot open or close emphasis.
_MARKDOWN_MARKUP = re.compile(r"([\\`*\[\]<>&~|#!$^{}=]|(?<![^\W_])_|_(?![^\W_]))")
_AUTOLINK = re.compile(r"www\.|://|@|^\s*[-+0-9]", re.IGNORECASE)


def markdown_words(text: str) -> str:
    """``text`` as one line of Markdown, inside a line, that shows as written: what could start
    markup is backslash-escaped (CommonMark's escapes), so no ``*``, ``_``, ``[``, ``<`` or ``#``
    in a name or a test's title becomes emphasis, a link, HTML or a heading; text an autolinker
    would link (``www.``, ``://``, an email), or that could start a list, has every ASCII
    punctuation mark escaped."""
    text = " ".join(terminal_text(text).split())
    pattern = _MARKDOWN_PUNCTUATION if _AUTOLINK.search(text) else _MARKDOWN_MARKUP
    return pattern.sub(r"\\\1", text)
