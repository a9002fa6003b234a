"""Find the submissions in a class folder, whatever tool collected them.

A class folder holds one entry per student: a folder or a ``.zip`` named by the
student's id. Two layouts of other tools are recognised too:

- nbgrader's ``submitted/<student>/<assignment>/`` (give the class folder or its
  ``submitted/``; with several assignments, the newest is taken unless one is named);
- a Gradescope export: ``submission_<id>/`` folders with ``submission_metadata.yml``
  mapping each to its submitters (a student's id is their SID, else their email; each member
  of a group submission gets its result).

Notebooks (``softmax.ipynb``) count as their exercise file: the solution code of their code cells
(``solution_code``), in order.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from attnlab.course import Course
from attnlab.solution_code import CodeCell, solution_code
from attnlab.misnamed import meant_name, without_copy_suffix
from attnlab.uploads import MAX_FILE_BYTES, UploadRefused, exercise_files, read_file

MAX_NOTEBOOK_CONTAINERS = 200_000
"""JSON objects and lists in a notebook at most: each costs Python some 60 bytes or more."""
# Letters and digits of any script stay (José, 李雷): a class of non-ASCII names must not collapse
# into one id. The rest (path separators, spaces, control characters) becomes "_".
_UNSAFE_IN_ID = re.compile(r"[^\w.@+-]")
MAX_ID_BYTES = 200
"""An id's UTF-8 length at most: ``<id>.json`` must fit a file name (255 bytes)."""


def shown(path: Path) -> str:
    """A path as text that a terminal, a JSON file and SQLite all take: bytes of a name that are
    not UTF-8 (a zip unpacked from another system: ``caf\\xe9``) show as U+FFFD."""
    return os.fsencode(path).decode("utf-8", "replace")


class RosterError(Exception):
    """The class folder cannot be read as a class; the message is one line."""


class NoExerciseFile(RosterError):
    """A submission holds none of the exercise files (nor their notebooks)."""


class SubmissionError(Exception):
    """The folder cannot be graded (missing, or not a submission); the message is one line."""


@dataclass(frozen=True)
class Entry:
    """One student's submission as found in the class folder."""

    student: str
    source: Path
    """The folder or zip as found."""
    copy: int = 0
    """Which copy its name says it is (``s2311 (2)``: 2; none: 0)."""
    also: tuple[str, ...] = ()
    """Other ids the submission names its student by (a Gradescope submitter's email)."""
    notes: tuple[str, ...] = ()
    """What the student is told about how it was found (the newest of their uploads)."""

    def fingerprint(self) -> str:
        """A hash of what was submitted: a changed submission is graded again."""
        if self.source.is_symlink():  # refused when graded; a link changed to a folder is graded anew
            return hashlib.sha256(b"symbolic link\0" + os.fsencode(os.readlink(self.source))).hexdigest()
        # Read in blocks: a student's folder may hold a data set of gigabytes beside the exercises.
        if self.source.is_file():
            with self.source.open("rb") as data:
                return hashlib.file_digest(data, "sha256").hexdigest()
        digest = hashlib.sha256()
        for path in sorted(p for p in self.source.rglob("*") if p.is_file() and not p.is_symlink()):
            digest.update(str(path.relative_to(self.source)).encode("utf-8", "surrogateescape") + b"\0")
            try:
                with path.open("rb") as data:
                    for block in iter(lambda: data.read(1 << 20), b""):
                        digest.update(block)
            except OSError as error:  # unreadable (a zip's odd permissions): its grading says so
                digest.update(f"unreadable: {error.strerror}".encode())
            digest.update(b"\0")
        return digest.hexdigest()


def safe_id(name: str) -> str:
    """A student id usable as a file name (``results/<id>.json``); an id is its own safe id.

    Composed (NFC) as typed, whatever the file system gave (macOS decomposes é); a name whose
    bytes are not UTF-8 (unpacked from a zip made on Windows) read as Latin-1, which keeps two
    such names two; a name with no letter or digit at all gets one from its hash."""
    try:
        raw = name.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that came from no file name (YAML can say "\ud800")
        raw = name.encode("utf-8", "replace")
    try:
        name = raw.decode("utf-8")
    except UnicodeDecodeError:
        name = raw.decode("latin-1")
    name = unicodedata.normalize("NFC", name)
    cleaned = _UNSAFE_IN_ID.sub("_", name).strip("._")
    cleaned = cleaned.encode()[:MAX_ID_BYTES].decode("utf-8", "ignore").rstrip("._")
    return cleaned or f"student-{hashlib.sha256(name.encode()).hexdigest()[:8]}"


def is_submission(folder: Path, course: Course) -> bool:
    """Does this folder hold exercise files (``softmax.py`` or ``softmax.ipynb``, or a misnamed
    ``Softmax.py``) itself? (Of any kind: a link or a pipe by such a name is the submission's, and
    refused when staged.)"""
    names = _exercise_names(course)
    if any(os.path.lexists(folder / name) for name in names):
        return True
    try:
        return any(meant_name(p.name, names) and not p.is_dir() for p in folder.iterdir() if not p.name.startswith("."))
    except OSError:
        return False


def _exercise_names(course: Course) -> set[str]:
    return {f"{m}{suffix}" for m in course.modules for suffix in (".py", ".ipynb")}


# What archivers and file managers leave beside the students' entries (a zip made on a Mac holds
# __MACOSX/): never a student.
ARCHIVE_LITTER = frozenset({"__MACOSX", "Thumbs.db", "desktop.ini"})


def _is_litter(path: Path) -> bool:
    return path.name.startswith(".") or path.name in ARCHIVE_LITTER


@dataclass(frozen=True)
class ClassFolder:
    """What a class folder holds: the students' submissions, and what else was found there."""

    entries: list[Entry]
    """One per student, sorted by student id."""
    not_graded: list[str]
    """What was found and is no student's graded submission, and why, one line each."""


def find_entries(folder: Path, course: Course, assignment: str | None = None) -> list[Entry]:
    """The class's submissions, one per student, sorted by student id (``survey``'s entries)."""
    return survey(folder, course, assignment).entries


def survey(folder: Path, course: Course, assignment: str | None = None) -> ClassFolder:
    """The class's submissions, and a line for each thing found that is not graded.

    A folder or zip with a copy suffix (``s2311 (1)``, ``s2311 copy``) is another upload of its
    student: the one saved last is graded, and the others are named. Two entries that would be one
    student otherwise (``alice.`` and ``alice``, ``Alice.zip`` and ``alice``: one results file on a
    disk that ignores case) are each refused, and the rest of the class is graded. A Gradescope
    export inside the class folder is its submissions, not one student."""
    folder = Path(folder)
    if not folder.is_dir():
        raise RosterError(f"{folder}: no such folder")
    not_graded: list[str] = []
    if (folder / "submission_metadata.yml").is_file():
        entries = _gradescope_entries(folder)
    elif (folder / "submitted").is_dir() or folder.name == "submitted":
        entries = _nbgrader_entries(folder if folder.name == "submitted" else folder / "submitted", assignment, not_graded)
    else:
        entries = _plain_entries(folder, not_graded)
    return ClassFolder(sorted(_one_per_student(entries, not_graded), key=lambda e: e.student), not_graded)


def _plain_entries(folder: Path, not_graded: list[str]) -> list[Entry]:
    entries = []
    for path in sorted(folder.iterdir()):
        name = shown(path.name)
        if _is_litter(path):
            continue
        is_zip = path.suffix.lower() == ".zip" and not path.is_dir()
        if not (path.is_dir() or is_zip):
            not_graded.append(f"{name}: not graded: a file, not a student's folder or .zip (named by the student's id)")
        elif path.is_dir() and not path.is_symlink() and (path / "submission_metadata.yml").is_file():
            entries += _gradescope_entries(path)  # an export dropped into the class: its submissions, each a student
        elif is_zip and _is_gradescope_export(path):
            not_graded.append(f"{name}: not graded: a Gradescope export; unzip it in the class folder and its submissions are graded")
        else:
            stem, copy = without_copy_suffix(path.stem if is_zip else path.name)
            entries.append(Entry(safe_id(stem), path, copy=copy))
    return entries


def _is_gradescope_export(path: Path) -> bool:
    import zipfile

    try:
        with zipfile.ZipFile(path) as bundle:
            return any(PurePosixPath(name).name == "submission_metadata.yml" and len(PurePosixPath(name).parts) <= 2 for name in bundle.namelist()[:MAX_LISTED])
    except (zipfile.BadZipFile, OSError, ValueError):
        return False  # a damaged zip: its grading says so


MAX_LISTED = 2000
"""Files looked at for when a folder was saved, at most (a data set beside the work holds many)."""


def saved_at(path: Path) -> float:
    """When an entry was last saved: a zip's time, or the newest time of a folder's files (not
    the folder's own, which is when it was unpacked)."""
    times = []
    if path.is_dir() and not path.is_symlink():
        for number, (folder, _, files) in enumerate(os.walk(path)):
            for name in files[:MAX_LISTED]:
                try:
                    times.append(os.lstat(os.path.join(folder, name)).st_mtime)
                except OSError:
                    pass
            if number > MAX_LISTED:
                break
    return max(times, default=path.lstat().st_mtime)


def _when(seconds: float) -> str:
    import datetime

    return datetime.datetime.fromtimestamp(seconds).strftime("%Y-%m-%d %H:%M:%S")


def _one_per_student(entries: list[Entry], not_graded: list[str]) -> list[Entry]:
    """One entry per student: the newest of a student's uploads with copy suffixes; entries that
    would share a student (and a results file) otherwise, each refused in a line of its own."""
    groups: dict[str, list[Entry]] = {}
    for entry in entries:
        groups.setdefault(entry.student.casefold(), []).append(entry)
    kept = []
    for group in groups.values():
        if len(group) == 1:
            kept.append(group[0])
            continue
        bases = {without_copy_suffix(e.source.stem if e.source.suffix.lower() == ".zip" else e.source.name)[0] for e in group}
        if len(bases) == 1 and any(e.copy for e in group):
            timed = sorted(((saved_at(e.source), e.copy, e) for e in group), key=lambda item: item[:2], reverse=True)
            if timed[0][:2] != timed[1][:2]:
                kept.append(_newest_upload(timed, not_graded))
                continue
        names = " and ".join(repr(shown(e.source.name)) for e in group)
        for entry in group:
            not_graded.append(f"{shown(entry.source.name)}: not graded: {names} would both be student {entry.student!r} (one results file): rename one, or remove one")
    return kept


def _newest_upload(timed: list[tuple[float, int, Entry]], not_graded: list[str]) -> Entry:
    """The first of one student's uploads, newest first (a tie: the later copy), told to the
    student and the instructor with the ones not graded."""
    _, _, newest = timed[0]
    tie = " (saved at the same time: the later copy)" if timed[0][0] == timed[1][0] else ""
    older = [f"{shown(e.source.name)!r} (saved {_when(t)})" for t, _, e in timed[1:]]
    for t, _, entry in timed[1:]:
        not_graded.append(f"{shown(entry.source.name)}: not graded: an earlier upload of {newest.student} than {shown(newest.source.name)!r}{tie}")
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
            not_graded += [f"{shown(student.name)}/{shown(a.name)}: not graded: {shown(assignments[-1].name)} is newer (--assignment names one)" for a in assignments[:-1]]
    return entries


def _gradescope_entries(export: Path) -> list[Entry]:
    import yaml

    try:
        metadata = yaml.safe_load((export / "submission_metadata.yml").read_text()) or {}
    except yaml.YAMLError as error:
        raise RosterError(f"{export / 'submission_metadata.yml'}: not valid YAML ({error.problem})") from None
    if not isinstance(metadata, dict):
        raise RosterError(f"{export / 'submission_metadata.yml'}: not a Gradescope export's metadata (no submission_<id>: entries)")
    entries = []
    for key, info in sorted(metadata.items(), key=lambda item: str(item[0])):
        if not (export / str(key)).is_dir():
            continue
        info = info if isinstance(info, dict) else {}
        submitters = info.get(":submitters") or info.get("submitters") or []
        submitters = submitters if isinstance(submitters, list) else []
        # A group submission is every member's: each gets the group's result under their own id.
        known = {_gradescope_id(s): _gradescope_email(s) for s in submitters if isinstance(s, dict) and _gradescope_id(s)}
        for student, email in (known or {str(key): None}).items():
            also = (email,) if email and email != student else ()
            entries.append(Entry(safe_id(student), export / str(key), also=also))
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


def looks_like_submission(entry: Entry, course: Course) -> bool:
    """Does the entry hold an exercise file somewhere (without unpacking it)? One refused (a
    link, a damaged zip, drafts) counts: its grading says why it is refused."""
    try:
        return bool(exercise_files(entry.source, _exercise_names(course), read=False, pick="newest").files)
    except UploadRefused:
        return True


NOT_RUN = "notebook cells not run, as no function of yours uses them (plots, prints, trying things out)"


@dataclass(frozen=True)
class Staged:
    """A submission's exercise files, staged as ``.py`` files for grading."""

    folder: Path
    notes: tuple[str, ...]
    """How its files were found and read (a misnamed file, a notebook's cells set aside), one line each."""
    not_graded: tuple[str, ...] = ()
    """What was found in it and not graded, and why, one line each."""


def stage(entry: Entry, course: Course, target: Path) -> Path:
    """Put the entry's exercise files, as ``.py`` files, into ``target``; return the folder to grade.

    Only the exercise files are read (``uploads``: no link followed, every byte counted). A
    notebook becomes the solution code it holds (``solution_code``: not its plots or prints).
    Raises ``RosterError`` when the entry holds no exercise file, or is refused (the message
    names why).
    """
    return stage_submission(entry, course, target).folder


def stage_submission(entry: Entry, course: Course, target: Path, pick: str | None = None) -> Staged:
    """``stage``, with what was said of the files found (``Staged``); ``pick`` (``"newest"``)
    grades the newest of several drafts rather than refusing them."""
    try:
        found = exercise_files(entry.source, _exercise_names(course), pick=pick)
    except UploadRefused as refused:
        raise RosterError(str(refused)) from None
    files = found.files
    if not files:
        names = ", ".join(f"{m}.py" for m in course.modules)
        refused = f" ({'; '.join(found.not_graded)})" if found.not_graded else ""
        raise NoExerciseFile(f"{shown(entry.source.name)}: no exercise file found (looked for {names}){refused}")
    staged = target / "submission"
    staged.mkdir(parents=True)
    notes, not_graded = list(found.notes), list(found.not_graded)
    set_aside = []
    for module in course.modules:
        script, notebook = f"{module}.py", f"{module}.ipynb"
        if script in files:
            (staged / script).write_bytes(files[script])
            if notebook in files:
                not_graded.append(f"{notebook}: not graded, as {script} was (hand in one of the two)")
        elif notebook in files:
            solution = solution_code(notebook_cells(files[notebook], notebook), notebook, tuple(course.functions_in(module)))
            (staged / script).write_text(solution.code, encoding="utf-8", errors="surrogatepass")
            notes += [solution.problems] if solution.problems else []
            set_aside += [solution.not_run] if solution.not_run else []
    if set_aside:  # one line for all the notebooks: the same words nine times read as nine failures
        notes.append(f"{NOT_RUN}: {' · '.join(set_aside)}")
    return Staged(staged, tuple(notes), tuple(not_graded))


def notebook_code(notebook: Path, keep=lambda cell: True) -> str:
    """A notebook's code cells (those ``keep`` accepts), in order, as one Python file (magics and
    shell lines dropped). A link, or a file larger than ``uploads.MAX_FILE_BYTES``, is refused."""
    try:
        data = read_file(notebook, MAX_FILE_BYTES)
    except UploadRefused as refused:
        raise RosterError(str(refused)) from None
    return notebook_text_code(data, notebook.name, keep)


def notebook_text_code(data: bytes, name: str, keep=lambda cell: True) -> str:
    """``notebook_code`` of a notebook's bytes (``name`` says which, in errors)."""
    return "\n\n".join(c.source for c in notebook_cells(data, name, keep)) + "\n"


def notebook_cells(data: bytes, name: str, keep=lambda cell: True) -> list[CodeCell]:
    """A notebook's code cells (those ``keep`` accepts), in order, magics and shell lines dropped.
    Raises ``RosterError``, naming ``name`` and what is wrong, when it is not a readable notebook."""
    # Each JSON object or list costs Python tens of bytes for the one or two the text spends.
    if data.count(b"{") + data.count(b"[") > MAX_NOTEBOOK_CONTAINERS:
        raise RosterError(f"{name}: not a readable notebook (more than {MAX_NOTEBOOK_CONTAINERS} JSON objects and lists)")
    try:
        document = json.loads(data.decode("utf-8"))
    except RecursionError:
        raise RosterError(f"{name}: not a readable notebook (nested too deep)") from None
    except ValueError as error:
        raise RosterError(f"{name}: not a readable notebook ({error})") from None
    cells = document.get("cells", []) if isinstance(document, dict) else None
    if not isinstance(cells, list):
        raise RosterError(f"{name}: not a readable notebook (it has no list of cells)")
    code_cells = []
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            raise RosterError(f"{name}: not a readable notebook (cell {number} is not a cell)")
        if cell.get("cell_type") != "code" or not keep(cell):
            continue
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(line, str) for line in source):
            source = "".join(source)
        elif not isinstance(source, str):
            raise RosterError(f"{name}: not a readable notebook (cell {number}'s source is not text)")
        metadata = cell.get("metadata")
        nbgrader = metadata.get("nbgrader") if isinstance(metadata, dict) else None
        code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
        code_cells.append(CodeCell(number, code, nbgrader if isinstance(nbgrader, dict) else None))
    return code_cells
