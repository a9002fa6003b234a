"""A class roster as an LMS or a registrar exports it: a CSV with id, name, email, section.

Only ``id`` is required; the header names the columns in any order and case (``Student ID``,
``SIS User ID`` and ``E-mail`` are read too). The file may be UTF-8 with or without Excel's BOM,
UTF-16 (Excel's "Unicode text"), or a legacy single-byte encoding (read as Windows-1252), and
separated by commas, semicolons or tabs. A row without an id, and an id given twice, are refused
with the line they are on.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from attnlab.roster import RosterError, safe_id

MAX_ROSTER_BYTES = 16 * 1024 * 1024
"""A roster of a hundred thousand students is a few megabytes."""

_COLUMNS = {
    "id": ("id", "student id", "studentid", "sis user id", "sis_user_id", "sid", "idnumber", "id number", "user id"),
    "name": ("name", "student", "full name", "student name"),
    "email": ("email", "e-mail", "email address", "mail"),
    "section": ("section", "sections", "group"),
}


@dataclass(frozen=True)
class RosterStudent:
    id: str
    name: str = ""
    email: str = ""
    section: str = ""


class Roster:
    """The students of a roster in its order, and how a grading id finds its student."""

    def __init__(self, students: tuple[RosterStudent, ...]):
        self.students = tuple(students)
        self._by_id: dict[str, RosterStudent] = {}
        for student in reversed(self.students):  # an id before an email, the first row before a later one
            if student.email:
                self._by_id[safe_id(student.email)] = student
        for student in reversed(self.students):
            self._by_id[student.id] = self._by_id[safe_id(student.id)] = student

    def find(self, grading_id: str) -> RosterStudent | None:
        """The student a grading id (a submission's folder name, a Gradescope SID or email) is."""
        return self._by_id.get(grading_id)


def _decode(raw: bytes, path: Path) -> str:
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return raw.decode("utf-16")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace")


def read_roster(path: Path) -> Roster:
    """The roster at ``path``; a ``RosterError`` (one line) for what cannot be used."""
    path = Path(path)
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
    text = _decode(raw, path)
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise RosterError(f"{path}: an empty roster (a CSV with a header: id, name, email, section)")
    delimiter = max(",;\t", key=lines[0].count)
    rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    header = [cell.strip().lower() for cell in rows[0]]
    where: dict[str, int] = {}
    for field, names in _COLUMNS.items():
        found = [i for i, cell in enumerate(header) if cell in names]
        if found:
            where[field] = found[0]
    if "id" not in where:
        raise RosterError(f"{path}: the header has no id column (it reads: {', '.join(rows[0])}); a roster is a CSV with id, name, email, section")
    students, lines_of = [], {}
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) > len(header) and any(c.strip() for c in row[len(header):]):
            raise RosterError(f"{path}:{number}: {len(row)} cells where the header has {len(header)} (a name with a {delimiter!r} in it must be in double quotes)")
        cell = {field: (row[i].strip() if i < len(row) else "") for field, i in where.items()}
        if not cell["id"]:
            raise RosterError(f"{path}:{number}: a student without an id")
        key = safe_id(cell["id"])
        if key in lines_of:
            raise RosterError(f"{path}:{number}: student {cell['id']!r} is also on line {lines_of[key]}: each id once")
        lines_of[key] = number
        students.append(RosterStudent(cell["id"], cell.get("name", ""), cell.get("email", ""), cell.get("section", "")))
    if not students:
        raise RosterError(f"{path}: a header and no students")
    return Roster(tuple(students))
