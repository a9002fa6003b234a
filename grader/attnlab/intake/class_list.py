"""The class list, read once for every command that takes ``--roster`` (``attnlab release``,
``attnlab grade``, ``attnlab quiz student-copy`` and ``quiz grade``).

Two forms are read, and anything else is refused in one line before a command writes anything:

- a **plain list** of student ids, one a line (blank lines and ``#`` comments skipped);
- a **class-list CSV** as an LMS or a registrar exports it: its first line names the columns, in
  any order and case. The id is the first column of ``_ID_COLUMNS`` the header has (Canvas's
  ``SIS User ID`` before its own ``ID``; Gradescope's ``SID``; Moodle's ``ID number``), else the
  email. A name is one column (``Name``, Canvas's ``Student``) or two (``First name``,
  ``Last name``). Rows that are no student are skipped: Canvas's ``Points Possible`` row and its
  test student, and a row whose ``Role`` is not a student's (Gradescope's staff). A student whose id
cell is empty (Canvas leaves ``SIS User ID`` empty for a student the registrar has not synced) is
read by the next id the row has (a login, an email, then the LMS's own number), and named; a row
with no id at all is skipped and named, never the whole roster refused.

The LMS's own ids of a student are kept beside the school's (``RosterStudent.lms_ids``): Canvas's
``ID`` (the user id its "Download Submissions" puts in each file's name) and the ``Identifier`` of
Moodle's grading worksheet (``Participant 1234567``: the participant id its "Download all
submissions" puts in each folder's name). A download's entries find their student by them
(``Roster.find_lms``).

The file may be UTF-8 with or without Excel's BOM, UTF-16 (Excel's "Unicode text"), or a legacy
single-byte encoding (read as Windows-1252), separated by commas, semicolons or tabs. An id
given twice is refused with the line it is on.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from attnlab.intake.roster import RosterError, safe_id
from attnlab.wording import count

MAX_ROSTER_BYTES = 16 * 1024 * 1024
"""A roster of a hundred thousand students is a few megabytes."""

_ID_COLUMNS = (
    "id",
    "sis user id",
    "sis_user_id",
    "student id",
    "studentid",
    "student number",
    "sid",
    "id number",
    "idnumber",
    "user id",
    "canvas id",
)
_ID_PREFERRED = (
    "sis user id",
    "sis_user_id",
    "student id",
    "studentid",
    "student number",
    "sid",
    "id number",
    "idnumber",
    "id",
    "user id",
    "canvas id",
)
"""Which id column wins where a header has several: Canvas's ``ID`` is its own user number, which
no other tool knows; its ``SIS User ID`` is the school's."""
_COLUMNS = {
    "name": ("name", "student", "full name", "student name"),
    "first": ("first name", "firstname", "given name"),
    "last": ("last name", "lastname", "surname", "family name"),
    "email": ("email", "e-mail", "email address", "mail"),
    "section": ("section", "sections", "group"),
    "role": ("role", "roles"),
}
# Rows of an LMS's export that are no student: Canvas's points row (and its old "Muted" row) and
# the test student of Canvas's "student view", none of which has the school's id.
_NOT_STUDENTS = {
    "points possible": "the Points Possible row",
    "muted": "the Muted row",
    "student, test": "the test student",
    "test student": "the test student",
}
_FALLBACK_IDS = ("sis login id", "login id", "username", "email", "e-mail", "email address", "mail")
"""Ids a student knows, read where the preferred id is empty, before the LMS's own numbers."""
_HEADER_WORDS = frozenset(_ID_COLUMNS) | frozenset(_COLUMNS["email"])


@dataclass(frozen=True)
class RosterStudent:
    id: str
    name: str = ""
    email: str = ""
    section: str = ""
    lms_ids: tuple[str, ...] = ()
    """The LMS's own ids of the student (Canvas's ``ID``, Moodle's participant id), when the list has them."""
    lms_id: str = ""
    """The LMS's own number of the student (Canvas's ``ID``), where the list has it beside the school's id:
    the grade sheet's ``ID`` column."""


_LMS_ID_COLUMNS = ("id", "user id", "canvas id", "identifier")
"""Columns that hold an LMS's own id of a student, where another column is the id graded under."""
_MOODLE_PARTICIPANT = "participant "
"""How Moodle's grading worksheet writes a participant id (``Participant 1234567``)."""


class Roster:
    """The students of a roster in its order, and how a grading id finds its student.

    ``skipped`` names the rows that are no student (Canvas's Points Possible row, its test student,
    staff) or have no id at all; ``by_other_id`` names the students read by another id than the
    preferred column's, which was empty."""

    def __init__(
        self, students: tuple[RosterStudent, ...], skipped: tuple[str, ...] = (), by_other_id: tuple[str, ...] = ()
    ):
        self.students = tuple(students)
        self.skipped = tuple(skipped)
        self.by_other_id = tuple(by_other_id)
        self._by_id: dict[str, RosterStudent] = {}
        for student in reversed(self.students):  # an id before an email, the first row before a later one
            if student.email:
                self._by_id[safe_id(student.email)] = self._by_id[safe_id(student.email.lower())] = student
        for student in reversed(self.students):
            self._by_id[student.id] = self._by_id[safe_id(student.id)] = student
        self._by_lms_id = {lms_id: student for student in reversed(self.students) for lms_id in student.lms_ids}

    @property
    def has_lms_ids(self) -> bool:
        """Does the list hold the LMS's own ids (Canvas's ``ID``, Moodle's ``Identifier``)?"""
        return bool(self._by_lms_id)

    def find_lms(self, lms_id: str) -> RosterStudent | None:
        """The student whose LMS id (Canvas's user id, Moodle's participant id) is ``lms_id``."""
        return self._by_lms_id.get(lms_id)

    @property
    def ids(self) -> list[str]:
        """The students' ids, in the roster's order."""
        return [s.id for s in self.students]

    def find(self, grading_id: str, *also: str) -> RosterStudent | None:
        """The student a grading id (a submission's folder name, a Gradescope SID or email) is;
        else the one of the first of ``also`` (the other ids the submission gave: an email) found."""
        for candidate in (grading_id, *also):
            for key in (candidate, safe_id(candidate), safe_id(candidate.lower())):
                if key in self._by_id:
                    return self._by_id[key]
        return None


def _decode(raw: bytes) -> str:
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return raw.decode("utf-16")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace")


def _read_bytes(path: Path) -> bytes:
    try:
        with open(path, "rb") as stream:
            raw = stream.read(MAX_ROSTER_BYTES + 1)
    except FileNotFoundError:
        raise RosterError(f"{path}: no such roster file") from None
    except IsADirectoryError:
        raise RosterError(f"{path}: a folder, not a roster file") from None
    except OSError as error:
        raise RosterError(f"{path}: cannot be read ({error.strerror})") from None
    if len(raw) > MAX_ROSTER_BYTES:
        raise RosterError(f"{path}: too large for a roster (over {MAX_ROSTER_BYTES >> 20} MiB)")
    if raw.startswith(b"PK\x03\x04"):
        raise RosterError(
            f"{path}: a spreadsheet workbook, not a text file: save it as CSV (a class list with a header), or give a plain list of ids, one a line"
        )
    return raw


_FORMS = "a plain list of student ids, one a line, or a class-list CSV whose first line names its columns (id, name, email, section)"


def read_roster(path: Path) -> Roster:
    """The roster at ``path``, a plain id list or a class-list CSV; a ``RosterError`` (one line)
    for what cannot be used."""
    path = Path(path)
    text = _decode(_read_bytes(path))
    lines = text.splitlines()
    first = next((line for line in lines if line.strip() and not line.lstrip().startswith("#")), None)
    if first is None:
        raise RosterError(f"{path}: an empty roster (give {_FORMS})")
    delimiter = max(",;\t", key=first.count)
    if first.count(delimiter) == 0 and first.strip().lower() not in _HEADER_WORDS:
        return _read_plain(path, lines)
    return _read_csv(path, text, delimiter)


def _read_plain(path: Path, lines: list[str]) -> Roster:
    students, lines_of = [], {}
    for number, line in enumerate(lines, start=1):
        student = line.strip()
        if not student or student.startswith("#"):
            continue
        if any(mark in student for mark in ",;\t"):
            raise RosterError(
                f"{path}:{number}: {student[:60]!r} is not one id, and the first line names no columns: give {_FORMS}"
            )
        key = safe_id(student).casefold()
        if key in lines_of:
            raise RosterError(f"{path}:{number}: student {student!r} is also on line {lines_of[key]}: each id once")
        lines_of[key] = number
        students.append(RosterStudent(student))
    return Roster(tuple(students))


def _column(header: list[str], names: tuple[str, ...]) -> int | None:
    for name in names:
        if name in header:
            return header.index(name)
    return None


def _read_csv(path: Path, text: str, delimiter: str) -> Roster:
    rows = [row for row in csv.reader(io.StringIO(text), delimiter=delimiter)]
    start = next(
        i for i, row in enumerate(rows) if any(cell.strip() for cell in row) and not row[0].lstrip().startswith("#")
    )
    header = [cell.strip().lower() for cell in rows[start]]
    where = {field: _column(header, names) for field, names in _COLUMNS.items()}
    where["id"] = _column(header, _ID_PREFERRED)
    if where["id"] is None:
        where["id"] = where["email"]  # a roster of emails (Gradescope's may have no SID): the email is the id
    if where["id"] is None:
        raise RosterError(
            f"{path}: the first line names no id column (it reads: {', '.join(rows[start])[:120]}); give {_FORMS}"
        )
    lms_columns = [header.index(c) for c in _LMS_ID_COLUMNS if c in header and header.index(c) != where["id"]]
    lms = _column(header, ("id", "canvas id"))
    if lms == where["id"]:
        lms = None  # the list's only id is the school's
    fallbacks = [
        i
        for i in dict.fromkeys(_column(header, (name,)) for name in (*_FALLBACK_IDS, *_ID_PREFERRED))
        if i is not None and i != where["id"]
    ]
    students, lines_of, skipped, by_other_id, staff = [], {}, [], [], 0
    for number, row in enumerate(rows[start + 1 :], start=start + 2):
        if not any(cell.strip() for cell in row) or row[0].lstrip().startswith("#"):
            continue
        if len(row) > len(header) and any(c.strip() for c in row[len(header) :]):
            raise RosterError(
                f"{path}:{number}: {len(row)} cells where the header has {len(header)} (a name with a {delimiter!r} in it must be in double quotes)"
            )
        cell = {field: (row[i].strip() if i is not None and i < len(row) else "") for field, i in where.items()}
        name = cell["name"] or " ".join(part for part in (cell["first"], cell["last"]) if part)
        if cell["role"] and not any(word in cell["role"].lower() for word in ("student", "learner")):
            staff += 1  # staff on a Gradescope or Moodle roster
            continue
        if not cell["id"]:
            if name.strip().lower() in _NOT_STUDENTS:
                skipped.append(_NOT_STUDENTS[name.strip().lower()])
                continue
            other = next((i for i in fallbacks if i < len(row) and row[i].strip()), None)
            who = f"line {number}" + (f" ({name})" if name else "")
            if other is None:
                skipped.append(f"{who}, without an id in any column")
                continue
            cell["id"] = row[other].strip()
            by_other_id.append(
                f"{who} by its {rows[start][other].strip()} {cell['id']!r} ({rows[start][where['id']].strip()} is empty)"
            )
        key = safe_id(cell["id"]).casefold()
        if key in lines_of:
            raise RosterError(f"{path}:{number}: student {cell['id']!r} is also on line {lines_of[key]}: each id once")
        lines_of[key] = number
        lms_ids = tuple(
            text[len(_MOODLE_PARTICIPANT) :].strip() if text.lower().startswith(_MOODLE_PARTICIPANT) else text
            for i in lms_columns
            if i < len(row) and (text := row[i].strip())
        )
        lms_id = row[lms].strip() if lms is not None and lms < len(row) else ""
        students.append(RosterStudent(cell["id"], name, cell["email"], cell["section"], lms_ids=lms_ids, lms_id=lms_id))
    if not students:
        left_out = f" ({'; '.join(skipped)} skipped)" if skipped else ""
        raise RosterError(f"{path}: a header and no students{left_out}")
    if staff:
        skipped.append(count(staff, "staff row"))
    return Roster(tuple(students), tuple(dict.fromkeys(skipped)), tuple(by_other_id))
