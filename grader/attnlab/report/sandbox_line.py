"""What the sandbox guarantees, in one line: the paragraph ``SandboxMode.describe`` writes is for
the instructor's report and ``--verbose``; every other place says its first clause."""

from __future__ import annotations

import re

_UID = re.compile(r" \(uid \d+\)")


def in_one_line(description: str) -> str:
    """The first clause of ``description`` (what isolates the code, as whom, with what limits),
    without its parentheses; a mode that does not isolate the code still says so."""
    first = re.sub(r"\s*\([^()]*\)", "", description.split(";", 1)[0]).strip()
    if "NOT isolated" in description and "NOT isolated" not in first:
        first += "; NOT isolated: student code can read and write whatever the grader can"
    return first


def without_uids(description: str) -> str:
    """``description`` without the private users' numbers: each grading process has its own, and
    the same guarantee must read the same."""
    return _UID.sub("", description)
