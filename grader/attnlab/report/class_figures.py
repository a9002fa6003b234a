"""What a class's stored results add up to: the score distribution, the tests most students
lost points on and why, and the exercise files students could not hand in importable.

Shared by the terminal summary (``class_summary``) and the class page (``class_html``); each
function takes stored results (``<student>.json``'s data) and returns plain rows;
``write_not_graded`` keeps every not-graded line in the results folder's ``not-graded.txt``.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass
from pathlib import Path

from attnlab.intake.misnamed import for_instructor
from attnlab.misconceptions import Misconception
from attnlab import results

BAR = "█"
REASON_CHARS = 100
"""A reason longer than this (a first line of feedback) is cut, with an ellipsis."""


def percentages(results: list[dict]) -> list[float]:
    """Each student's score as a percentage of the class's maximum (a not gradable one: 0)."""
    reports = [d.get("report") or {} for d in results]
    maximum = max((r.get("max_score") or 0 for r in reports), default=0) or 1
    return [100 * (r.get("score") or 0) / maximum for r in reports]


def score_histogram(percentages: list[float], bins: int = 10, width: int = 40) -> list[tuple[str, int, str]]:
    """(label, count, bar) per tenth of the maximum score; full marks get their own row."""
    counts = [0] * (bins + 1)
    for value in percentages:
        counts[bins if value >= 100 else min(int(value // (100 / bins)), bins - 1)] += 1
    top = max(counts) or 1
    labels = [f"{int(i * 100 / bins):3d}–{int((i + 1) * 100 / bins) - 1:3d}%" for i in range(bins)] + ["   100%"]
    return [(label, count, BAR * round(width * count / top)) for label, count in zip(labels, counts)]


def not_importable(test: dict) -> bool:
    """Did ``test`` (stored) fail because its exercise file is missing or could not be imported?"""
    return results.not_importable(str(test.get("outcome")), str(test.get("feedback", "")), str(test.get("module")))


def _first_line(text: str) -> str:
    line = text.strip().split("\n", 1)[0]
    return line if len(line) <= REASON_CHARS else line[: REASON_CHARS - 1] + "…"


def reason(test: dict, names: dict[str, str]) -> str:
    """Why a student lost a test's points, in a few words: the named mistake, else the first line
    of the feedback, else how the test ended."""
    if test.get("misconception"):
        return names.get(test["misconception"], test["misconception"])
    return _first_line(str(test.get("feedback") or "")) or str(test.get("outcome"))


@dataclass(frozen=True)
class MissedTest:
    """A hidden test students lost points on while its file could be imported."""

    name: str
    students: int
    """Students who lost points on it with the file importable."""
    reason: str
    """The most common reason among them (``reason``)."""
    reason_students: int
    """Students whose reason it is."""


def most_failed(results: list[dict], catalogue: list[Misconception], limit: int = 10) -> list[MissedTest]:
    """The tests most students lost points on, with a wrong answer rather than a file missing or
    not importable (those are ``files_not_importable``), and their most common reason."""
    failing: collections.Counter = collections.Counter()
    reasons: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    names = {m.id: m.name for m in catalogue}
    for data in results:
        for test in (data.get("report") or {}).get("tests", []):
            if test["score"] < test["max_score"] and not not_importable(test):
                failing[test["name"]] += 1
                reasons[test["name"]][reason(test, names)] += 1
    rows = []
    for name, students in failing.most_common(limit):
        top, times = reasons[name].most_common(1)[0]
        rows.append(MissedTest(name, students, top, times))
    return rows


def files_not_importable(results: list[dict]) -> list[tuple[str, list[str]]]:
    """(exercise file, the students) for each file some students handed in missing or not
    importable, most students first."""
    students: dict[str, list[str]] = collections.defaultdict(list)
    for data in results:
        files = {f"{t['module']}.py" for t in (data.get("report") or {}).get("tests", []) if not_importable(t)}
        for name in sorted(files):
            students[name].append(str(data.get("student", "?")))
    return sorted(students.items(), key=lambda item: (-len(item[1]), item[0]))


def names_of(students: list[str], shown: int = 8) -> str:
    """Some students' ids, the first ``shown`` of them, then how many more."""
    more = f", and {len(students) - shown} more" if len(students) > shown else ""
    return ", ".join(students[:shown]) + more


def not_graded_lines(results: list[dict], class_lines: list[str]) -> list[str]:
    """What was found and not graded, and why, one line each: what the class folder holds that
    is no student's submission (``class_lines``), each submission that could not be graded, and
    what each graded submission held that was not graded (a second copy, an older draft); the
    students' lines first, as the terminal shows them."""
    lines = []
    for data in results:
        student = str(data.get("student", "?"))
        if data.get("error"):
            lines.append(f"not gradable: {student}: {for_instructor(str(data['error']))}")
        lines += [f"{student}: {line}" for line in (data.get("report") or {}).get("not_graded", [])]
    return lines + list(class_lines)


def write_not_graded(folder: Path, class_lines: list[str], results: list[dict]) -> Path | None:
    """Every line of what was found and not graded, in ``not-graded.txt`` of the results folder
    (the summary shows the first of them); None when there is none, or it cannot be written."""
    from attnlab.atomic import write_text_atomically

    lines = not_graded_lines(results, class_lines)
    path = folder / "not-graded.txt"
    try:
        if lines:
            write_text_atomically(path, "\n".join(lines) + "\n")
        else:
            path.unlink(missing_ok=True)
    except OSError:
        return None
    return path if lines else None
