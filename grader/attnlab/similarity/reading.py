"""A class folder read as ``attnlab grade CLASS`` reads it, into each student's exercise files as text.

The entries are the grader's (``intake.class_folder.survey``: one folder or zip per student,
nbgrader's ``submitted/``, a Gradescope export, the newest of a student's uploads) and each is
staged as for grading (``intake.roster.stage_submission``: only the exercise files, read within
bounds, a notebook as the solution code of its cells), so students have the ids grading gives
them and the code compared is the code graded.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from attnlab.classroom.gradebook import holds_results
from attnlab.course import Course
from attnlab.intake.class_folder import survey
from attnlab.intake.roster import RosterError, is_submission, looks_like_submission, stage_submission

MAX_FILE_CHARACTERS = 40_000
"""Characters of one exercise file compared at most: three times the reference's longest file.
Tokenizing costs up to a few tenths of a millisecond a character (a file of stray bytes is a
token each), so a file swollen on purpose costs seconds, not minutes."""
MAX_STUDENT_CHARACTERS = 120_000
"""Characters of one student's files compared at most, together: twice the reference's."""


@dataclass(frozen=True)
class StudentCode:
    """One student's exercise files, as graded."""

    student: str
    """The id grading gives the student."""
    files: dict[str, str]
    """Exercise module (``softmax``) -> the text of its file; only the files handed in."""
    notes: tuple[str, ...] = ()
    """What was not compared of them (a file cut at ``MAX_FILE_CHARACTERS``), one line each."""


@dataclass(frozen=True)
class ClassCode:
    """A class's code: each student's files, and what was found and not compared."""

    students: list[StudentCode]
    """Sorted by student id."""
    not_compared: list[str]
    """What the folder holds that is no student's code compared, and why, one line each."""


def read_class(
    folder: Path,
    course: Course,
    *,
    assignment: str | None = None,
    pick: str | None = None,
    on_read: Callable[[int, int], None] | None = None,
) -> ClassCode:
    """Each student's exercise files in the class ``folder``; ``on_read`` is told how many
    entries are read of how many (progress). Raises ``RosterError`` (one line) when ``folder`` is no
    class folder: missing, one submission, or holding no student's exercise files."""
    folder = Path(folder)
    if folder.is_dir() and is_submission(folder, course):
        raise RosterError(
            f"{folder}: one submission, not a class folder; similarity compares the students of a class (a folder with one folder or .zip per student)"
        )
    found = survey(folder, course, assignment)
    # A results folder kept inside the class folder is the grader's output, not a student.
    entries = [e for e in found.entries if not holds_results(e.source)]
    if not any(looks_like_submission(e, course) for e in entries):
        expected = ", ".join(f"{m}.py" for m in course.modules)
        raise RosterError(f"{folder}: not a class folder (no folder or .zip in it holds any of {expected})")
    students, not_compared = [], list(found.not_graded)
    with tempfile.TemporaryDirectory(prefix="attnlab-similarity-") as scratch:
        for number, entry in enumerate(entries):
            try:
                staged = stage_submission(entry, course, Path(scratch) / str(number), pick=pick)
            except RosterError as error:
                not_compared.append(f"{entry.student}: not compared: {error}")
            else:
                students.append(_code_of(entry.student, staged.folder, course))
            if on_read is not None:
                on_read(number + 1, len(entries))
    return ClassCode(students, not_compared)


def _code_of(student: str, staged: Path, course: Course) -> StudentCode:
    files, notes, left = {}, [], MAX_STUDENT_CHARACTERS
    for module in course.modules:
        path = staged / f"{module}.py"
        if not path.is_file():
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        kept = min(len(text), MAX_FILE_CHARACTERS, left)
        if kept < len(text):
            notes.append(
                f"{module}.py: only its first {kept:,} characters were compared (a file {MAX_FILE_CHARACTERS:,} at most, all files {MAX_STUDENT_CHARACTERS:,})"
            )
        files[module], left = text[:kept], left - kept
    return StudentCode(student, files, tuple(notes))
