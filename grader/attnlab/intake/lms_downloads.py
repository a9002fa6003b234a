"""The submissions of a class as Canvas and Moodle download them: one entry per student.

**Canvas** ("Download Submissions") gives one folder of loose files, each named by its
``ContentZipper`` (canvas-lms ``lib/content_zipper.rb``, ``get_filename`` and
``add_upload_submission``): ``<name>_<user id>_<file id>_<name handed in>``, where ``<name>`` is the
student's sortable name downcased with every character that is not a letter, digit or ``_``
dropped (``smithjohn``; a group's name for a group submission), ``LATE_`` comes before the user
id when Canvas marked the submission late, an anonymous assignment has ``anon_<id>`` for the
user id and no name, and ``<file id>`` is the uploaded file's own id, which grows with every file
Canvas stores. Text entries and links are ``<name>_<user id>_text.html`` and ``_link.html``. A
file a student uploads again under the same name is renamed by Canvas ``softmax-1.py``,
``softmax-2.py`` (the forum thread nus-cs2103-AY2223S2/forum#361 shows one). All of a student's
files are one entry, found by their user id; where two files are the same exercise file, the one
Canvas stored last (the higher file id) is graded, and the others are named.

**Moodle** ("Download all submissions", with "Download submissions in folders") gives a folder
per student and plugin: ``<Full Name>_<participant id>_assignsubmission_file_`` holding the files
(or one zip the student uploaded, then graded as the upload) and
``..._assignsubmission_onlinetext_`` beside it; without folders, loose files
``<Full Name>_<participant id>_assignsubmission_file_<name handed in>``. The participant id is the
assignment's own id of the student (moodle ``mod/assign``, ``get_uniqueid_for_user``): the
``Identifier`` of its grading worksheet (``Participant 1234567``).

A student's id is the roster's when a roster (``class_list``) finds the LMS's id (Canvas's ``ID``
column, else its ``SIS User ID``; Moodle's ``Identifier``), else the LMS's id itself. What fits
neither layout is named once, in a line of its own, and never graded as a student.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from attnlab.intake.misnamed import meant_name
from attnlab.intake.roster import Entry, RosterError, safe_id, shown
from attnlab.intake.uploads import UploadRefused, exercise_files, zip_members

LAYOUTS = ("canvas", "moodle")

# Canvas writes the name lazily first: its sanitizer keeps no "_<digits>_" in a name, so the first
# "_<user>_<file>_" is the ids, whatever the name handed in says after them.
_CANVAS_FILE = re.compile(
    r"(?:(?P<name>.*?)_)??(?:(?P<late>late)_)?(?P<user>\d+|anon_[0-9a-z]+)_(?P<file>\d+)_(?P<handed_in>.+)",
    re.IGNORECASE | re.DOTALL,
)
_CANVAS_TEXT = re.compile(r"(?:(?P<name>.*?)_)??(?:late_)?(?P<user>\d+|anon_[0-9a-z]+)_(?:text|link)\.html", re.I)
# Canvas renames a file uploaded again under the same name: softmax-1.py, softmax-2.py.
_RESUBMITTED = re.compile(r"(?P<stem>.+?)-(?P<again>\d{1,3})(?P<suffix>\.[^.]+)?")
_MOODLE = re.compile(
    r"(?P<name>.*)_(?P<participant>\d+)_assignsubmission_(?P<plugin>[a-z]+)_(?P<handed_in>.*)", re.DOTALL
)
MAX_LISTED = 100_000
"""Entries of a download's folder looked at at most (a class of thousands, each with a few files)."""
ZIPS_LISTED = 100
"""Entries of a Moodle student's folder looked at for the zip they uploaded at most."""


@dataclass(frozen=True)
class CanvasFile:
    """One file of a Canvas download, as its name says."""

    stored: str
    """Its name in the download."""
    name: str
    user: str
    file_id: int
    handed_in: str
    """The name the student handed it in as, without Canvas's resubmission suffix."""
    late: bool


def canvas_file(name: str) -> CanvasFile | None:
    """What a Canvas download's file name says, or None when it is not one."""
    match = _CANVAS_FILE.fullmatch(name)
    if match is None:
        return None
    handed_in = match["handed_in"]
    again = _RESUBMITTED.fullmatch(handed_in)
    if again is not None:
        handed_in = again["stem"] + (again["suffix"] or "")
    user = match["user"]
    if user.lower().startswith("anon_"):  # the prefix only: two anonymous ids may differ in case alone
        user = "anon_" + user[len("anon_") :]
    return CanvasFile(name, match["name"] or "", user, int(match["file"]), handed_in, bool(match["late"]))


def moodle_name(name: str) -> re.Match | None:
    """What a Moodle download's folder or file name says (name, participant, plugin, handed_in)."""
    return _MOODLE.fullmatch(name)


def _listing(folder: Path) -> list[os.DirEntry]:
    entries = []
    with os.scandir(folder) as listed:
        for entry in listed:
            entries.append(entry)
            if len(entries) > MAX_LISTED:
                raise RosterError(f"{folder}: more than {MAX_LISTED} files and folders: not a class's download")
    return sorted(entries, key=lambda e: e.name)


def _is_folder(path: Path) -> bool:
    """A folder, not a link to one (a link is refused by name when it is graded)."""
    return path.is_dir() and not path.is_symlink()


def _is_litter(name: str) -> bool:
    return name.startswith(".") or name in ("__MACOSX", "Thumbs.db", "desktop.ini")


def layout_of(folder: Path) -> str | None:
    """``"canvas"`` or ``"moodle"`` where every entry of ``folder`` but stray files is that LMS's,
    and at least one is; None otherwise (another layout, or a mix to be named with ``--layout``)."""
    canvas = moodle = others = 0
    for entry in _listing(folder):
        if _is_litter(entry.name):
            continue
        is_dir = entry.is_dir(follow_symlinks=False)
        if moodle_name(entry.name) is not None:
            moodle += 1
        elif not is_dir and (canvas_file(entry.name) or _CANVAS_TEXT.fullmatch(entry.name)):
            canvas += 1
        elif is_dir or entry.name.lower().endswith(".zip"):
            others += 1  # a student's folder or zip of the plain layout
    if others or bool(canvas) == bool(moodle):
        return None
    return "canvas" if canvas else "moodle"


def _student(lms_id: str, roster, by_sis: bool) -> str:
    """The id a student of the download is graded under: the roster's, where it finds the LMS's
    id (``by_sis``: Canvas's, found among the roster's own ids where it has no LMS ids), else that."""
    if roster is not None:
        found = roster.find_lms(lms_id)
        if found is None and by_sis and not roster.has_lms_ids:  # a plain list of Canvas's ids
            found = roster.find(lms_id)
        if found is not None:
            return safe_id(found.id)
    return safe_id(lms_id)


def canvas_entries(folder: Path, not_graded: list[str], exercises: set[str], roster=None) -> list[Entry]:
    """One entry per student of a Canvas download (the module's docstring says how it is read);
    ``exercises``: the exercise files' names, which a student's zip is graded only without."""
    by_user: dict[str, list[CanvasFile]] = {}
    for entry in _listing(folder):
        name = shown(entry.name)
        if _is_litter(entry.name):
            continue
        parsed = canvas_file(entry.name)
        if parsed is None:
            text = _CANVAS_TEXT.fullmatch(entry.name)
            if text is not None:
                not_graded.append(f"{name}: not graded: a text entry or link of Canvas user {text['user']}, not a file")
            else:
                kind = "a folder" if entry.is_dir(follow_symlinks=False) else "a file"
                not_graded.append(
                    f"{name}: not graded: {kind} not named as Canvas names a download's files (name_USERID_FILEID_file)"
                )
            continue
        by_user.setdefault(parsed.user, []).append(parsed)
    entries = []
    for user, files in sorted(by_user.items()):
        names = sorted({f.name for f in files})
        if len(names) > 1:  # Canvas gives a user one name: files claiming one under two are not told apart
            for f in files:
                not_graded.append(
                    f"{shown(f.stored)}: not graded: Canvas user {user}'s files carry two names ({', '.join(map(repr, names))}): remove the files that are not theirs"
                )
            continue
        student = _student(user, roster, by_sis=True)
        kept, notes = _latest_uploads(files, student, not_graded, [])
        if any(f.late for f in kept):
            notes.append("Canvas marked this submission late")
        source = folder / f"{names[0]}_{user}" if names[0] else folder / user
        bundles = [f for f in kept if f.stored.lower().endswith(".zip") or _is_folder(folder / f.stored)]
        if len(bundles) == 1 and not any(meant_name(f.handed_in, exercises) for f in kept):
            # The student uploaded a zip of their work (or it was unzipped in place): it is the upload.
            upload = bundles[0]
            notes.append(f"graded the zip you uploaded, {shown(upload.handed_in)!r}")
            not_graded += [
                f"{shown(f.stored)}: not graded: beside {student}'s zip {shown(upload.stored)!r}, which was graded"
                for f in kept
                if f is not upload
            ]
            entries.append(Entry(student, folder / upload.stored, notes=tuple(notes)))
        else:
            files_of = tuple((f.handed_in, f.stored) for f in kept)
            entries.append(Entry(student, source, notes=tuple(notes), files=files_of))
    return entries


def _latest_uploads(
    files: list[CanvasFile], student: str, not_graded: list[str], notes: list[str]
) -> tuple[list[CanvasFile], list[str]]:
    """One file per name handed in: the one Canvas stored last (the highest file id), the others named."""
    by_name: dict[str, list[CanvasFile]] = {}
    for f in files:
        by_name.setdefault(f.handed_in.lower(), []).append(f)
    kept = []
    for same in by_name.values():
        same.sort(key=lambda f: f.file_id, reverse=True)
        latest, *earlier = same
        kept.append(latest)
        if earlier:
            older = ", ".join(repr(shown(f.stored)) for f in earlier)
            notes.append(
                f"graded your latest upload of {shown(latest.handed_in)}, {shown(latest.stored)!r} (the last Canvas stored); not graded: {older}"
            )
            not_graded += [
                f"{shown(f.stored)}: not graded: an earlier upload of {student} than {shown(latest.stored)!r}"
                for f in earlier
            ]
    return kept, notes


def moodle_entries(folder: Path, not_graded: list[str], exercises: set[str], roster=None) -> list[Entry]:
    """One entry per student of a Moodle download (the module's docstring says how it is read);
    ``exercises``: the exercise files' names, which a student's folder is looked through for
    before a zip in it is taken as their upload."""
    uploads: dict[str, list[tuple[str, os.DirEntry]]] = {}
    loose: dict[str, list[tuple[str, os.DirEntry, str]]] = {}
    for entry in _listing(folder):
        name = shown(entry.name)
        if _is_litter(entry.name):
            continue
        match = moodle_name(entry.name)
        is_dir = entry.is_dir(follow_symlinks=False)
        if match is None:
            kind = "a folder" if is_dir else "a file"
            not_graded.append(
                f"{name}: not graded: {kind} not named as Moodle names a download's (Full Name_ID_assignsubmission_file_)"
            )
        elif match["plugin"] != "file":
            not_graded.append(
                f"{name}: not graded: Moodle's {match['plugin']} submission of participant {match['participant']}, not an uploaded file"
            )
        elif is_dir or entry.is_symlink():  # a link is the student's entry, refused by name when it is graded
            uploads.setdefault(match["participant"], []).append((match["name"], entry))
        elif match["handed_in"]:
            loose.setdefault(match["participant"], []).append((match["name"], entry, match["handed_in"]))
        else:
            not_graded.append(f"{name}: not graded: a file where Moodle puts a student's folder")
    entries = []
    for participant in sorted(set(uploads) | set(loose)):
        found = uploads.get(participant, [])
        files = loose.get(participant, [])
        claimed = sorted({n for n, _ in found} | {n for n, _, _ in files})
        if len(claimed) > 1 or len(found) > 1 or (found and files):
            for _, entry in found:
                not_graded.append(
                    f"{shown(entry.name)}: not graded: Moodle participant {participant} has more than one submission here ({', '.join(map(repr, claimed))}): keep one"
                )
            for _, entry, _ in files:
                not_graded.append(
                    f"{shown(entry.name)}: not graded: Moodle participant {participant} has more than one submission here ({', '.join(map(repr, claimed))}): keep one"
                )
            continue
        student = _student(participant, roster, by_sis=False)
        if found:
            upload, notes = _uploaded_zip(Path(found[0][1].path), exercises)
            entries.append(Entry(student, upload, notes=notes))
        else:
            prefix = f"{claimed[0]}_{participant}_assignsubmission_file"
            listed = tuple((handed_in, entry.name) for _, entry, handed_in in files)
            entries.append(Entry(student, folder / prefix, files=listed))
    return entries


def _uploaded_zip(folder: Path, names: set[str]) -> tuple[Path, tuple[str, ...]]:
    """A Moodle student's folder, or the one zip in it when no exercise file is found in the
    folder itself (the student uploaded a zip of their work): it is then read as their upload,
    within the bounds of every zip (``uploads``)."""
    try:
        if exercise_files(folder, names, read=False, pick="newest").files:
            return folder, ()
    except UploadRefused:
        return folder, ()  # its grading says why
    zips = []
    try:
        with os.scandir(folder) as listed:
            for number, entry in enumerate(listed):
                if number >= ZIPS_LISTED:
                    return folder, ()
                if entry.name.lower().endswith(".zip") and not entry.name.startswith("."):
                    zips.append(entry)
    except OSError:
        return folder, ()
    if len(zips) != 1 or zips[0].is_dir(follow_symlinks=False):
        return folder, ()
    return Path(zips[0].path), (f"graded the zip you uploaded, {shown(zips[0].name)!r}",)


def download_hint(path: Path) -> str | None:
    """What to do with ``path`` when it is part or all of an LMS's download given as one
    submission: one file of Canvas's, or the zip of a whole class's; None when it is neither."""
    name = Path(path).name
    if canvas_file(name) is not None and not name.lower().endswith(".zip"):
        return (
            f"{shown(name)} is one file of a Canvas download: grade the folder that holds the download "
            "(attnlab grade FOLDER), which grades each student's files together"
        )
    if not name.lower().endswith(".zip"):
        return None
    tops = [PurePosixPath(member).parts for member in zip_members(Path(path))]
    lms = layout_of_names([parts[0] for parts in tops if parts]) or layout_of_names(
        [parts[1] for parts in tops if len(parts) > 1]
    )
    if lms is None:
        return None
    return (
        f"{shown(name)} is a {lms.capitalize()} download of a whole class: unzip it, "
        "then grade the folder it gives (attnlab grade FOLDER), each student once"
    )


def layout_of_names(names: list[str]) -> str | None:
    """``"canvas"`` or ``"moodle"`` when most of ``names`` (a zip's) are that LMS's, else None."""
    names = [n for n in set(names) if not _is_litter(n)]
    canvas = sum(canvas_file(n) is not None for n in names)
    moodle = sum(moodle_name(n) is not None for n in names)
    if max(canvas, moodle) * 2 <= len(names) or not names:
        return None
    return "moodle" if moodle >= canvas else "canvas"


def class_folder_words(folder: Path) -> str:
    """What a class folder is, as the instructor reads it: an LMS download's says so."""
    try:
        kind = layout_of(folder)
    except (RosterError, OSError):  # the survey of the class says why, in its own words
        kind = None
    if kind is None:
        return "a class folder"
    return f"a class folder ({kind.capitalize()}'s download: each student's files are graded together; --student ID grades one)"
