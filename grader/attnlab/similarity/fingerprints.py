"""A file's fingerprints (copydetect's), less the passages that are no evidence of copying.

copydetect tokenizes a file with Pygments and writes every name as ``V``, every function name as
``F``, every string as ``S``, and drops comments and whitespace: a copy with its variables
renamed and its comments removed has the fingerprints of its source. A fingerprint is the hash
of ``K`` consecutive characters of that filtered text. Every one is kept (a winnowing window of
1): Python salts its string hashes in each process, and winnowing picks among hashes by their
order, so a larger window would score the same class a little differently on each run.

Two kinds of passage are subtracted before comparing, as MOSS does: those of the released stubs
(signatures, docstrings, hints: every student hands them in), and passages common to more than
a given number of students' files (code the exercise all but dictates).
"""

from __future__ import annotations

import copy
import io
import logging
from collections import Counter

import numpy as np

# copydetect imports matplotlib (for its own report, not used here), which logs a warning while it
# builds its font cache the first time: not a line for the instructor's terminal.
_matplotlib_log = logging.getLogger("matplotlib")
_level = _matplotlib_log.level
_matplotlib_log.setLevel(logging.ERROR)
try:
    from copydetect import CodeFingerprint
    from copydetect.utils import get_token_coverage
finally:
    _matplotlib_log.setLevel(_level)

K = 25
"""Filtered characters in a fingerprint: copydetect's default noise threshold (a line of code or
so); a run shared between two files is seen once it is this long."""


def fingerprint(text: str, module: str) -> CodeFingerprint:
    """The fingerprints of ``text``, the file ``module``.py, every ``K``-gram of its filtered text."""
    return CodeFingerprint(f"{module}.py", K, 1, fp=io.StringIO(text))


def passages(text: str, module: str) -> frozenset[int]:
    """The fingerprints of a text (a stub) as a set, to subtract from the students' files."""
    return frozenset(int(h) for h in fingerprint(text, module).hashes)


def without(print_: CodeFingerprint, subtracted: frozenset[int] | set[int]) -> CodeFingerprint:
    """``print_`` less the fingerprints in ``subtracted``: they neither match nor count as the
    file's own code (its ``token_coverage``, the filtered characters its fingerprints cover)."""
    if not subtracted:
        return print_
    kept = copy.copy(print_)
    kept.hashes = {h for h in print_.hashes if h not in subtracted}
    kept.hash_idx = {h: at for h, at in print_.hash_idx.items() if h not in subtracted}
    kept.token_coverage = int(get_token_coverage(kept.hash_idx, K, len(print_.filtered_code)))
    return kept


def common_passages(prints: list[CodeFingerprint], more_than: int) -> set[int]:
    """The fingerprints found in more than ``more_than`` of ``prints`` (one file of each student)."""
    counts = Counter(h for print_ in prints for h in print_.hashes)
    return {h for h, n in counts.items() if n > more_than}


def own_characters(print_: CodeFingerprint) -> int:
    """Filtered characters of the file's own code: those its fingerprints cover."""
    return int(print_.token_coverage)


def raw_spans(slices: np.ndarray) -> list[tuple[int, int]]:
    """copydetect's slices (a 2 × N array of starts and ends in the raw text) as (start, end) pairs."""
    if slices.size == 0:
        return []
    return [(int(start), int(end)) for start, end in zip(slices[0], slices[1])]
