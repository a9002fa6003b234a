"""Compare a class's students file by file, and keep the pairs that share enough code of their own.

For a pair of students and one exercise file both handed in, each side's **share** is the part
of its own code (what is left once the stubs and the common passages are subtracted) that is
found in the other's file. A file's score is the smaller of the two shares, so that a short
answer found inside a long one (or the reverse) does not score as a copy; a pair's score is that
of its most similar file, so that one file copied among ten written alone still shows.

A file pair counts only when the two share at least ``MIN_SHARED`` filtered characters: a
three-line answer that two students wrote alike is no evidence. ``THRESHOLD`` is the score from
which a pair is worth a look (how it was chosen: docs/instructors.md, "Similar code").
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from itertools import combinations
from typing import Callable

from attnlab.similarity.fingerprints import (
    K,
    common_passages,
    fingerprint,
    own_characters,
    passages,
    raw_spans,
    without,
)
from attnlab.similarity.reading import StudentCode

THRESHOLD = 0.5
"""A pair whose most similar file scores this or more is shown as worth a look."""
MIN_SHARED = 60
"""Filtered characters (names as ``V``, no whitespace: some four lines of code) two files must
share to count at all."""
COMMON_IN = 10
"""A passage in more than this many students' files is code the exercise dictates, not copied
(MOSS's default for the same rule)."""


@dataclass(frozen=True)
class FileMatch:
    """One exercise file of two students, and what of it they share."""

    module: str
    share_a: float
    """The part of the first student's own code in this file found in the second's (0 to 1)."""
    share_b: float
    """The part of the second student's own code in this file found in the first's (0 to 1)."""
    shared: int
    """Filtered characters in common (the smaller of the two sides' counts)."""
    passages_a: tuple[tuple[int, int], ...]
    """The matching passages in the first student's file: (start, end) character offsets."""
    passages_b: tuple[tuple[int, int], ...]
    """The matching passages in the second student's file."""

    @property
    def score(self) -> float:
        return min(self.share_a, self.share_b)


@dataclass(frozen=True)
class Pair:
    """Two students whose files share code of their own."""

    a: str
    b: str
    files: tuple[FileMatch, ...]
    """The files they share code in, most similar first."""
    share_a: float
    """The part of all of the first student's own code found in the second's files."""
    share_b: float
    """The part of all of the second student's own code found in the first's files."""

    @property
    def score(self) -> float:
        """The score of the most similar file (0 to 1)."""
        return self.files[0].score

    @property
    def shared(self) -> int:
        """Filtered characters in common, over all files."""
        return sum(f.shared for f in self.files)


@dataclass(frozen=True)
class Similarity:
    """A class compared: every pair that shares code, most similar first."""

    pairs: list[Pair]
    students: list[str]
    """The students compared."""
    code: dict[str, dict[str, str]] = field(repr=False)
    """Student -> module -> the text compared (to show the passages)."""
    stubs: dict[str, str] = field(repr=False)
    """Module -> the stub's text, subtracted."""
    common_in: int = COMMON_IN

    def above(self, threshold: float = THRESHOLD) -> list[Pair]:
        """The pairs worth a look at ``threshold``, most similar first."""
        return [p for p in self.pairs if p.score >= threshold]


Progress = Callable[[str, int, int], None]
"""Told the step (``"fingerprints"``, ``"comparing"``), what is done of it, and its total."""


def compare_class(
    students: list[StudentCode],
    stubs: dict[str, str],
    *,
    common_in: int = COMMON_IN,
    jobs: int = 1,
    on_progress: Progress | None = None,
) -> Similarity:
    """Every pair of ``students`` whose files share at least ``MIN_SHARED`` filtered characters of
    their own code, most similar first; ``stubs`` maps each module to its released stub's text.
    ``jobs`` processes tokenize the files (forked from this one, single-threaded: the hashes of
    Python strings are salted per interpreter, and a forked process keeps its parent's salt)."""
    from copydetect import compare_files

    def tell(step: str, done: int, total: int) -> None:
        # Some 200 updates a step: a class of 200 makes tens of thousands of comparisons.
        if on_progress is not None and (done == total or done % max(1, total // 200) == 0):
            on_progress(step, done, total)

    subtracted_stubs = {module: passages(text, module) for module, text in stubs.items()}
    files = [(s.student, module, text) for s in students for module, text in s.files.items()]
    prints: dict[str, dict[str, object]] = defaultdict(dict)  # module -> student -> fingerprint
    for (student, module, _), print_ in zip(files, _fingerprints(files, jobs, tell)):
        prints[module][student] = without(print_, subtracted_stubs.get(module, set()))
    for module, by_student in prints.items():
        common = common_passages(list(by_student.values()), common_in)
        prints[module] = {s: without(p, common) for s, p in by_student.items()}
    candidates = _candidates(prints, common_in)
    matches: dict[tuple[str, str], list[FileMatch]] = defaultdict(list)
    for done, (a, b, module) in enumerate(candidates, start=1):
        first, second = prints[module][a], prints[module][b]
        overlap_a, (share_a, share_b), (slices_a, slices_b) = compare_files(first, second)
        shared = min(int(overlap_a), round(float(share_b) * own_characters(second)))
        if shared >= MIN_SHARED:
            matches[(a, b)].append(
                FileMatch(
                    module,
                    float(share_a),
                    float(share_b),
                    shared,
                    tuple(raw_spans(slices_a)),
                    tuple(raw_spans(slices_b)),
                )
            )
        tell("comparing", done, len(candidates))
    own = {
        s.student: sum(own_characters(prints[m][s.student]) for m in s.files) for s in students
    }  # filtered characters of each student's own code, over all files
    pairs = []
    for (a, b), alike in matches.items():
        alike.sort(key=lambda f: (-f.score, -f.shared, f.module))
        pairs.append(
            Pair(
                a,
                b,
                tuple(alike),
                _share(sum(f.share_a * own_characters(prints[f.module][a]) for f in alike), own[a]),
                _share(sum(f.share_b * own_characters(prints[f.module][b]) for f in alike), own[b]),
            )
        )
    pairs.sort(key=lambda p: (-p.score, -len(p.files), -p.shared, p.a, p.b))
    return Similarity(
        pairs,
        [s.student for s in students],
        {s.student: dict(s.files) for s in students},
        dict(stubs),
        common_in,
    )


FILES_PER_TASK = 20
"""Files a tokenizing process is handed at a time."""


def _fingerprint(item: tuple[str, str, str]):
    return fingerprint(item[2], item[1])


def _fingerprints(files: list[tuple[str, str, str]], jobs: int, tell: Progress) -> list:
    """The fingerprint of each (student, module, text), in order, tokenized by ``jobs`` processes;
    a text handed in twice (a stub left as it was, a copy) is tokenized once."""
    distinct = list({(module, text): (student, module, text) for student, module, text in files}.values())
    made = []
    if jobs <= 1 or len(distinct) < 2 * FILES_PER_TASK:
        for print_ in map(_fingerprint, distinct):
            made.append(print_)
            tell("fingerprints", len(made), len(distinct))
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            for print_ in pool.map(_fingerprint, distinct, chunksize=FILES_PER_TASK):
                made.append(print_)
                tell("fingerprints", len(made), len(distinct))
    by_text = {(module, text): print_ for (_, module, text), print_ in zip(distinct, made)}
    return [by_text[(module, text)] for _, module, text in files]


def _share(part: float, whole: int) -> float:
    return min(1.0, part / whole) if whole else 0.0


def _candidates(prints: dict[str, dict[str, object]], common_in: int) -> list[tuple[str, str, str]]:
    """The (student, student, module) whose files share enough fingerprints to possibly share
    ``MIN_SHARED`` characters, found through an index of who holds each fingerprint rather than
    by comparing every pair of the class."""
    enough = -(-MIN_SHARED // K)  # each shared fingerprint covers at most K characters
    found = []
    for module, by_student in prints.items():
        holders: dict[int, list[str]] = defaultdict(list)
        for student, print_ in sorted(by_student.items()):
            for h in print_.hashes:
                holders[h].append(student)
        shared: Counter = Counter()
        for students in holders.values():
            if 1 < len(students) <= common_in:
                shared.update(combinations(students, 2))
        found += [(a, b, module) for (a, b), n in sorted(shared.items()) if n >= enough]
    return found
