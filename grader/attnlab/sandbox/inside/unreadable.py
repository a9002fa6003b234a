"""Why Python cannot read a student's file, in one line: the same line from ``attnlab check`` and
from the grader's worker, which imports the file in the sandbox (so this module is one of those
the sandbox holds)."""

from __future__ import annotations

import os
import re

# Python's two ways of saying that a byte of the file is not UTF-8: one in a string, one elsewhere.
_NOT_UTF8 = re.compile(r"can't decode byte 0x([0-9a-f]{2})|Non-UTF-8 code starting with '\\x([0-9a-f]{2})'")


def unreadable_line(error: SyntaxError) -> str:
    """The line for a ``SyntaxError`` raised reading a student's file: where (the file, its line
    and that line's code), why, and what to do. A byte that is not UTF-8 (a file saved as
    Latin-1 or Windows-1252) is named, with how to save the file as Python reads it."""
    # Any of these may be the student's own (``raise SyntaxError(...)``): whatever they are, one line.
    name = (os.path.basename(error.filename) if isinstance(error.filename, str) else "") or "the file"
    code = " ".join(str(error.text or "").split()).encode("utf-8", "replace").decode("utf-8")
    where = f"{name}, line {error.lineno}" + (f" ({code})" if code else "")
    not_utf8 = _NOT_UTF8.search(str(error.msg))
    if not_utf8:
        byte = not_utf8.group(1) or not_utf8.group(2)
        return (
            f"{where}: byte 0x{byte} is not UTF-8 (the file was saved in another encoding, such as Latin-1 or Windows-1252). "
            "Python cannot read this file: save it as UTF-8 (your editor's Save As or Encoding menu), or remove that character."
        )
    if not error.lineno:  # Python read no line: the file's encoding (its coding line, a BOM) is at fault
        return (
            f"{name}: {error.msg}. Python cannot read this file: "
            "save it as UTF-8, without a coding line (# -*- coding: ... -*-) or with one that names UTF-8."
        )
    return f"{where}: {error.msg}. Python cannot read this file: fix that line (or the one before it)."
