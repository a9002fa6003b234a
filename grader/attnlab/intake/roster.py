"""A student's submission: its id (``safe_id``), its entry as handed in, and its exercise files
staged for grading (``stage_submission``: read through ``uploads``, found by the names meant,
``misnamed``). ``class_folder`` finds a class's entries.

Notebooks (``softmax.ipynb``) count as their exercise file: the solution code of their code cells
(``solution_code``), in order.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from attnlab.course import Course
from attnlab.intake.misnamed import meant_name
from attnlab.intake.solution_code import CodeCell, solution_code
from attnlab.intake.uploads import MAX_FILE_BYTES, Found, UploadRefused, exercise_files, listed_files, read_file

MAX_NOTEBOOK_CONTAINERS = 200_000
"""JSON objects and lists in a notebook at most: each costs Python some 60 bytes or more."""
# Letters and digits of any script stay (José, 李雷): a class of non-ASCII names must not collapse
# into one id. The rest (path separators, spaces, control characters) becomes "_".
_UNSAFE_IN_ID = re.compile(r"[^\w.@+-]")
MAX_ID_BYTES = 200
"""An id's UTF-8 length at most: ``<id>.json`` must fit a file name (255 bytes)."""
FINGERPRINT_FORMAT = "v2"
"""How ``Entry.fingerprint`` reads a submission, first in each fingerprint (``v2:<sha256>``): a
result stored under another way is graded again, and says why."""


def shown(path: Path) -> str:
    """A path as text that a terminal, a JSON file and SQLite all take: bytes of a name that are
    not UTF-8 (a zip unpacked from another system: ``caf\\xe9``) show as U+FFFD."""
    return os.fsencode(path).decode("utf-8", "replace")


class RosterError(Exception):
    """The class folder cannot be read as a class; the message is one line."""


class NoExerciseFile(RosterError):
    """A submission holds none of the exercise files (nor their notebooks); ``found`` says what it
    holds that could each be one (two misnamed copies), one line each."""

    def __init__(self, message: str, found: tuple[str, ...] = ()):
        super().__init__(message)
        self.found = found


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
    files: tuple[tuple[str, str], ...] = ()
    """A student of a download of loose files (Canvas's): their files in ``source``'s folder, each
    as (the name they handed it in as, its name there); ``source`` is then no file but the
    student's part of those names in that folder (``smithjohn_123``). Empty: ``source`` is the
    whole submission."""

    def fingerprint(self, course: Course) -> str:
        """A hash of what grading reads of the submission: its exercise files as ``stage``
        finds them (whichever of its drafts ``--pick`` grades), with what was said of them, or
        why it is refused. A change that can change its grade changes it; what grading never
        reads (a data set beside the work, a folder a thousand deep) is never read here either,
        within the bounds staging has (``uploads``). Each file is hashed apart and the whole is
        one canonical JSON text, so no two submissions can run together into one hash."""
        names = exercise_names(course)
        read = []
        for pick in (None, "newest"):  # the same files unless it holds drafts, which only "newest" grades
            try:
                found = _found(self, names, pick=pick)
            except UploadRefused as refused:
                read.append({"refused": str(refused)})
                continue
            except OSError as error:  # a folder that changed while it was read: its grading says so
                read.append({"unreadable": error.strerror or str(error)})
                continue
            files = {name: hashlib.sha256(data).hexdigest() for name, data in found.files.items()}
            read.append({"files": files, "notes": list(found.notes), "not_graded": list(found.not_graded)})
            break
        text = json.dumps(read, sort_keys=True)
        return f"{FINGERPRINT_FORMAT}:{hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()}"


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
    names = exercise_names(course)
    if any(os.path.lexists(folder / name) for name in names):
        return True
    try:
        return any(meant_name(p.name, names) and not p.is_dir() for p in folder.iterdir() if not p.name.startswith("."))
    except OSError:
        return False


def exercise_names(course: Course) -> set[str]:
    """The names an exercise file is handed in by: ``softmax.py`` or ``softmax.ipynb``."""
    return {f"{m}{suffix}" for m in course.modules for suffix in (".py", ".ipynb")}


def _found(entry: Entry, names: set[str], *, read: bool = True, pick: str | None = None) -> Found:
    """The exercise files of ``entry``: its listed files, or those of its folder or zip."""
    if entry.files:
        return listed_files(entry.source.parent, dict(entry.files), names, read=read)
    return exercise_files(entry.source, names, read=read, pick=pick)


def looks_like_submission(entry: Entry, course: Course) -> bool:
    """Does the entry hold an exercise file somewhere (without unpacking it)? One refused (a
    link, a damaged zip, drafts) counts: its grading says why it is refused."""
    try:
        return bool(_found(entry, exercise_names(course), read=False, pick="newest").files)
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
        found = _found(entry, exercise_names(course), pick=pick)
    except UploadRefused as refused:
        raise RosterError(str(refused)) from None
    files = found.files
    if not files:
        names = ", ".join(f"{m}.py" for m in course.modules)
        refused = f" ({'; '.join(found.not_graded)})" if found.not_graded else ""
        raise NoExerciseFile(
            f"{shown(entry.source.name)}: no exercise file found (looked for {names}){refused}", found.not_graded
        )
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
            solution = solution_code(
                notebook_cells(files[notebook], notebook), notebook, tuple(course.functions_in(module))
            )
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
        raise RosterError(
            f"{name}: not a readable notebook (more than {MAX_NOTEBOOK_CONTAINERS} JSON objects and lists)"
        )
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
