"""One score per student, in the columns an LMS's gradebook import reads.

- ``canvas``: Canvas's gradebook import (Grades > Import), the columns of its own export:
  ``Student, ID, SIS User ID, Section``, then one assignment column, and a ``Points Possible``
  row under the header. Canvas matches a row by ``ID`` (its own user id: the roster's, where it
  is a Canvas class list; a roster from outside Canvas has none, left empty) or by ``SIS User
  ID`` (the roster's id), and makes a new assignment of a column whose name it does not know.
- ``moodle``: Moodle's "Import grades from CSV": a column to identify the user by (``ID number``
  or ``Email address``, chosen on the import page) and one grade column, mapped there to the
  grade item. The name is there for the person reading the file; Moodle ignores it. Moodle reads
  no maximum from the file (it is the grade item's: 100 for a new one, and a grade above it
  stops the whole import), so the command says the maximum to set (``ScoreSheet.possible``).
- ``csv``: the roster's columns beside the score, for anything else.

A student on the roster without a score (no submission) gets an empty cell, which both LMSs
leave as it was; a score of a student not on the roster is written at the end, without a name,
and reported. Every cell is written inert (``inert.write_csv``): a name or id like
``=HYPERLINK(...)`` is text in the spreadsheet, never a formula.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

from attnlab import inert
from attnlab.intake.class_list import Roster, RosterStudent
from attnlab.export.sheets.options import LMS_FORMATS as FORMATS


@dataclass(frozen=True)
class Score:
    student: str
    """The id grading knows (a submission's folder, an answers file's student)."""
    points: float
    max_points: float
    also: tuple[str, ...] = ()
    """Other ids of the student (a Gradescope submitter's email), tried when ``student`` is not on the roster."""


@dataclass(frozen=True)
class ScoreSheet:
    rows: list[list]
    not_on_roster: list[str]
    """Ids with a score that the roster does not list (written without a name)."""
    without_score: list[str]
    """Roster ids with no score (an empty cell)."""
    scored_twice: dict[str, list[str]] = field(default_factory=dict)
    """Roster id -> the grading ids that are both that student (by id and by email): left empty."""
    possible: float = 0.0
    """The points possible: Canvas's ``Points Possible`` row, the maximum a Moodle grade item needs."""


def _number(value: float):
    value = round(float(value), 4)
    return int(value) if value.is_integer() else value


def score_sheet(output_format: str, scores: list[Score], roster: Roster | None, column: str) -> ScoreSheet:
    """The rows of the CSV in ``output_format`` (``FORMATS``), the score in column ``column``. A
    score finds its roster student by its id, else by one of its ``also`` ids (an email)."""
    if output_format not in FORMATS:
        raise ValueError(f"unknown format {output_format!r}")
    by_student = {score.student: score for score in scores}
    placed: dict[str, RosterStudent] = {}
    if roster is not None:
        for score in scores:
            found = roster.find(score.student, *score.also)
            if found is not None:
                placed[score.student] = found
    listed = list(roster.students) if roster is not None else []
    scored_of: dict[str, list[str]] = {}
    for grading_id, student in placed.items():
        scored_of.setdefault(student.id, []).append(grading_id)
    twice = {rid: ids for rid, ids in scored_of.items() if len(ids) > 1}
    entries = [
        (student, by_student[scored_of[student.id][0]] if len(scored_of.get(student.id, [])) == 1 else None)
        for student in listed
    ]
    strays = [score for score in scores if score.student not in placed]
    entries += [(RosterStudent(score.student), score) for score in strays]
    possible = max((s.max_points for s in scores), default=0)
    if output_format == "canvas":
        rows = [["Student", "ID", "SIS User ID", "Section", column], ["Points Possible", "", "", "", _number(possible)]]
        rows += [
            [s.name, s.lms_id, s.id, s.section, "" if score is None else _number(score.points)] for s, score in entries
        ]
    elif output_format == "moodle":
        rows = [["ID number", "Email address", "Full name", column]]
        rows += [[s.id, s.email, s.name, "" if score is None else _number(score.points)] for s, score in entries]
    else:
        rows = [["id", "name", "email", "section", column, "max_points"]]
        rows += [
            [
                s.id,
                s.name,
                s.email,
                s.section,
                "" if score is None else _number(score.points),
                "" if score is None else _number(score.max_points),
            ]
            for s, score in entries
        ]
    return ScoreSheet(
        rows,
        [s.student for s in strays] if roster is not None else [],
        [s.id for s, score in entries if score is None and s.id not in twice],
        twice,
        possible,
    )


BOM = "\ufeff"
"""UTF-8's byte order mark: what tells Excel a CSV is UTF-8 (without it, "José" reads "JosÃ©")."""


def sheet_csv(sheet: ScoreSheet, bom: bool = False) -> str:
    out = io.StringIO()
    inert.write_csv(out, sheet.rows)
    return (BOM if bom else "") + out.getvalue()
