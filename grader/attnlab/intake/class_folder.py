"""The submissions a class folder holds, whatever tool collected it, and what else it holds.

A class folder holds one entry per student: a folder or a ``.zip`` named by the student's id.
Two layouts of other tools are recognised too:

- nbgrader's ``submitted/<student>/<assignment>/`` (give the class folder or its
  ``submitted/``; with several assignments, the newest is taken unless one is named);
- a Gradescope export: ``submission_<id>/`` folders with ``submission_metadata.yml``
  mapping each to its submitters (a student's id is their SID, else their email; each member
  of a group submission gets its result), given as the class or dropped into a class folder;
- Canvas's and Moodle's downloads (``lms_downloads``): a student's loose files, or their folder,
  found by the LMS's id, which a roster maps to its own.

Each is recognised where it is unambiguous; ``layout`` (``LAYOUTS``, the ``--layout`` option)
names it where it is not.

``survey`` also says, one line each, what it found that is no student's graded submission: a
loose file, an earlier upload of a student (``s2311`` beside ``s2311 (1)``), entries that would
share a student and a results file (``alice.`` beside ``alice``), an older nbgrader assignment, a
submission a Gradescope export's metadata names that has no folder in it.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path

from attnlab.course import Course
from attnlab.intake import lms_downloads
from attnlab.intake.misnamed import without_copy_suffix
from attnlab.intake.roster import Entry, RosterError, exercise_names, safe_id, shown
from attnlab.intake.uploads import zip_holds
from attnlab.intake.walk import TooManyEntries, levels, open_folder

# What archivers and file managers leave beside the students' entries (a zip made on a Mac holds
# __MACOSX/): never a student.
ARCHIVE_LITTER = frozenset({"__MACOSX", "Thumbs.db", "desktop.ini"})
LAYOUTS = ("folders", "nbgrader", "gradescope", *lms_downloads.LAYOUTS)
"""The layouts a class folder may be read as (``--layout``); by default, the one it is."""
METADATA = "submission_metadata.yml"
"""The file that makes a folder a Gradescope export: each submission's folder and its submitters."""


def _is_litter(path: Path) -> bool:
    return path.name.startswith(".") or path.name in ARCHIVE_LITTER


@dataclass(frozen=True)
class ClassFolder:
    """What a class folder holds: the students' submissions, and what else was found there."""

    entries: list[Entry]
    """One per student, sorted by student id."""
    not_graded: list[str]
    """What was found and is no student's graded submission, and why, one line each."""
    layout: str = "folders"
    """The layout it was read as (``LAYOUTS``)."""


def find_entries(folder: Path, course: Course, assignment: str | None = None, layout: str | None = None) -> list[Entry]:
    """The class's submissions, one per student, sorted by student id (``survey``'s entries)."""
    return survey(folder, course, assignment, layout).entries


def survey(
    folder: Path, course: Course, assignment: str | None = None, layout: str | None = None, roster=None
) -> ClassFolder:
    """The class's submissions, and a line for each thing found that is not graded.

    A folder or zip with a copy suffix (``s2311 (1)``, ``s2311 copy``) is another upload of its
    student: the one saved last is graded, and the others are named. Two entries that would be one
    student otherwise (``alice.`` and ``alice``, ``Alice.zip`` and ``alice``: one results file on a
    disk that ignores case) are each refused, and the rest of the class is graded. A Gradescope
    export inside the class folder is its submissions, not one student. ``layout`` (``LAYOUTS``)
    reads the folder as that layout (default: the one it is); ``roster`` (``class_list``) maps
    an LMS download's ids to its own."""
    folder = Path(folder)
    if not folder.is_dir():
        raise RosterError(f"{folder}: no such folder")
    if layout is not None and layout not in LAYOUTS:
        raise RosterError(f"unknown layout {layout!r} (one of {', '.join(LAYOUTS)})")
    not_graded: list[str] = []
    if layout is None:
        layout = _layout_of(folder)
    if layout == "gradescope":
        if not (folder / METADATA).is_file():
            raise RosterError(f"{folder}: not a Gradescope export (no {METADATA} in it)")
        entries = _gradescope_entries(folder, not_graded)
    elif layout == "nbgrader":
        submitted = (
            folder if folder.name == "submitted" or not (folder / "submitted").is_dir() else folder / "submitted"
        )
        entries = _nbgrader_entries(submitted, assignment, not_graded)
    elif layout == "canvas":
        entries = lms_downloads.canvas_entries(folder, not_graded, exercise_names(course), roster)
    elif layout == "moodle":
        entries = lms_downloads.moodle_entries(folder, not_graded, exercise_names(course), roster)
    else:
        entries = _plain_entries(folder, not_graded)
    return ClassFolder(
        sorted(_one_per_student(entries, not_graded, folder), key=lambda e: e.student), not_graded, layout
    )


def _layout_of(folder: Path) -> str:
    """The layout ``folder`` is in: an export's or nbgrader's by its marks, an LMS download's by
    its names (``lms_downloads.layout_of``), else a folder or zip per student."""
    if (folder / METADATA).is_file():
        return "gradescope"
    if (folder / "submitted").is_dir() or folder.name == "submitted":
        return "nbgrader"
    return lms_downloads.layout_of(folder) or "folders"


def _plain_entries(folder: Path, not_graded: list[str]) -> list[Entry]:
    entries = []
    for path in sorted(folder.iterdir()):
        name = shown(path.name)
        if _is_litter(path):
            continue
        is_zip = path.suffix.lower() == ".zip" and not path.is_dir()
        if not (path.is_dir() or is_zip) and lms_downloads.canvas_file(path.name) is not None:
            not_graded.append(
                f"{name}: not graded: a file of a Canvas download beside students' folders: --layout canvas grades those files"
            )
        elif not (path.is_dir() or is_zip):
            not_graded.append(f"{name}: not graded: a file, not a student's folder or .zip (named by the student's id)")
        elif path.is_dir() and not path.is_symlink() and (path / METADATA).is_file():
            # An export dropped into the class: its submissions, each a student.
            entries += _gradescope_entries(path, not_graded, f"{name}/")
        elif is_zip and zip_holds(path, METADATA):
            not_graded.append(
                f"{name}: not graded: a Gradescope export; unzip it in the class folder and its submissions are graded"
            )
        else:
            stem, copy = without_copy_suffix(path.stem if is_zip else path.name)
            entries.append(Entry(safe_id(stem), path, copy=copy))
    return entries


def saved_at(path: Path) -> float:
    """When an entry was last saved: a zip's time, or the newest time of a folder's files (not
    the folder's own, which is when it was unpacked), of those a bounded walk (``walk``) lists."""
    times: list[float] = []

    def note(parts: tuple[str, ...], entry: os.DirEntry, folder: int) -> bool:
        if entry.is_dir(follow_symlinks=False):
            return True
        try:
            times.append(entry.stat(follow_symlinks=False).st_mtime)
        except OSError:
            pass
        return False

    try:
        top = open_folder(path)
    except OSError:  # a zip, a link, a file: its own time
        return path.lstat().st_mtime
    try:
        for _ in levels(top, note):
            pass
    except (TooManyEntries, OSError):
        pass  # the newest of the files listed so far: a data set beside the work says little more
    finally:
        os.close(top)
    return max(times, default=path.lstat().st_mtime)


def _when(seconds: float) -> str:
    import datetime

    return datetime.datetime.fromtimestamp(seconds).strftime("%Y-%m-%d %H:%M:%S")


def _one_per_student(entries: list[Entry], not_graded: list[str], folder: Path) -> list[Entry]:
    """One entry per student: the newest of a student's uploads with copy suffixes; entries that
    would share a student (and a results file) otherwise, each refused in a line of its own, named
    by its place in the class ``folder`` (nbgrader's ``alice/ps1``)."""

    def where(entry: Entry) -> str:
        try:
            return shown(entry.source.relative_to(folder))
        except ValueError:
            return shown(entry.source.name)

    groups: dict[str, list[Entry]] = {}
    for entry in entries:
        groups.setdefault(entry.student.casefold(), []).append(entry)
    kept = []
    for group in groups.values():
        if len(group) == 1:
            kept.append(group[0])
            continue
        bases = {
            without_copy_suffix(e.source.stem if e.source.suffix.lower() == ".zip" else e.source.name)[0] for e in group
        }
        if len(bases) == 1 and any(e.copy for e in group):
            timed = sorted(((saved_at(e.source), e.copy, e) for e in group), key=lambda item: item[:2], reverse=True)
            if timed[0][:2] != timed[1][:2]:
                kept.append(_newest_upload(timed, not_graded))
                continue
        names = " and ".join(repr(where(e)) for e in group)
        for entry in group:
            not_graded.append(
                f"{where(entry)}: not graded: {names} would both be student {entry.student!r} (one results file): rename one, or remove one"
            )
    return kept


def _newest_upload(timed: list[tuple[float, int, Entry]], not_graded: list[str]) -> Entry:
    """The first of one student's uploads, newest first (a tie: the later copy), told to the
    student and the instructor with the ones not graded."""
    _, _, newest = timed[0]
    tie = " (saved at the same time: the later copy)" if timed[0][0] == timed[1][0] else ""
    older = [f"{shown(e.source.name)!r} (saved {_when(t)})" for t, _, e in timed[1:]]
    for t, _, entry in timed[1:]:
        not_graded.append(
            f"{shown(entry.source.name)}: not graded: an earlier upload of {newest.student} than {shown(newest.source.name)!r}{tie}"
        )
    note = f"graded your upload {shown(newest.source.name)!r} (saved {_when(timed[0][0])}), the newest{tie}; not graded: {', '.join(older)}"
    return dataclasses.replace(newest, notes=(*newest.notes, note))


def _nbgrader_entries(submitted: Path, assignment: str | None, not_graded: list[str]) -> list[Entry]:
    entries = []
    for student in sorted(p for p in submitted.iterdir() if p.is_dir() and not _is_litter(p)):
        if student.is_symlink():  # not followed: refused, by name, when it is graded
            entries.append(Entry(safe_id(student.name), student))
            continue
        assignments = sorted((p for p in student.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime)
        if assignment is not None:
            assignments = [p for p in assignments if p.name == assignment]
        if assignments:
            entries.append(Entry(safe_id(student.name), assignments[-1]))
            not_graded += [
                f"{shown(student.name)}/{shown(a.name)}: not graded: {shown(assignments[-1].name)} is newer (--assignment names one)"
                for a in assignments[:-1]
            ]
    return entries


def _gradescope_entries(export: Path, not_graded: list[str], where: str = "") -> list[Entry]:
    """The submissions of a Gradescope export (``where``: its place in the class folder, as
    ``name/``). Its folders and its metadata are read against each other: a submission the
    metadata names with no folder, and a file, are each named in ``not_graded``; a folder it
    does not name is graded under the folder's name, as one it names with no submitter is."""
    import yaml

    try:
        metadata = yaml.safe_load((export / METADATA).read_text()) or {}
    except yaml.YAMLError as error:
        raise RosterError(f"{export / METADATA}: not valid YAML ({error.problem})") from None
    if not isinstance(metadata, dict):
        raise RosterError(f"{export / METADATA}: not a Gradescope export's metadata (no submission_<id>: entries)")
    entries, named = [], set()
    for key, info in sorted(metadata.items(), key=lambda item: str(item[0])):
        folder = str(key)
        info = info if isinstance(info, dict) else {}
        submitters = info.get(":submitters") or info.get("submitters") or []
        submitters = submitters if isinstance(submitters, list) else []
        # A group submission is every member's: each gets the group's result under their own id.
        known = {
            _gradescope_id(s): _gradescope_email(s) for s in submitters if isinstance(s, dict) and _gradescope_id(s)
        }
        if folder in ("", ".", "..") or "/" in folder or "\0" in folder:
            not_graded.append(f"{where}{shown(folder)}: not graded: {METADATA} names it, but it is no folder's name")
            continue
        named.add(folder)
        if not (export / folder).is_dir():
            ids = ", ".join(shown(student) for student in known)
            whose = f", of student{'s' if len(known) > 1 else ''} {ids}," if known else ""
            not_graded.append(
                f"{where}{shown(folder)}: not graded: {METADATA} names this submission{whose} but the export holds no folder {shown(folder)}"
            )
            continue
        for student, email in (known or {folder: None}).items():
            also = (email,) if email and email != student else ()
            entries.append(Entry(safe_id(student), export / folder, also=also))
    for path in sorted(export.iterdir()):
        if path.name in named or path.name == METADATA or _is_litter(path):
            continue
        if path.is_dir():
            note = f"{METADATA} does not name this submission's submitters: graded under its folder's name"
            entries.append(Entry(safe_id(path.name), path, notes=(note,)))
        else:
            not_graded.append(
                f"{where}{shown(path.name)}: not graded: a file, not a submission's folder of the Gradescope export"
            )
    return entries


def _gradescope_email(submitter: dict) -> str | None:
    email = submitter.get(":email", submitter.get("email"))
    return str(email) if email not in (None, "") else None


def _gradescope_id(submitter: dict) -> str | None:
    """A submitter's SID, else their email (Gradescope writes the keys with a leading colon)."""
    for field in (":sid", "sid", ":email", "email"):
        if submitter.get(field) not in (None, ""):
            return str(submitter[field])
    return None
