"""A class's results on disk: one JSON file per student, and the gradebook built from them.

A results folder belongs to one class (``CLASS.results/`` beside it by default):
``class-folder.txt`` in it names the class, and another class's run is refused
(two classes sharing one folder overwrote each other's students of the same id).
``<student>.json`` is written atomically the moment a submission is graded, so
nothing finished is ever lost; it records what was graded (a hash of
the submission) and by what (a hash of the hidden tests, the reference and the
limits), so a rerun grades only what is missing or changed. The SQLite
gradebook and the CSV export are rebuilt from those files, never edited in place.
"""

from __future__ import annotations

import datetime
import hashlib
import io
import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from attnlab import __version__, inert
from attnlab.atomic import write_json_atomically, write_text_atomically
from attnlab.course import Course

GRADEBOOK_NAME = "gradebook.sqlite"
CLASS_NAME = "class-folder.txt"
BEFORE_NAME = "scores-before-regrade"  # JSON, named so that no glob of students' *.json takes it
"""The scores of a regrade's students before it, kept until the run that finishes it lists the changes."""
_SCHEMA = """
CREATE TABLE submissions (
    student TEXT PRIMARY KEY, score REAL, max_score REAL, error TEXT,
    graded_at TEXT, duration REAL, sandbox TEXT, fingerprint TEXT, source TEXT
);
CREATE TABLE results (
    student TEXT, number INTEGER, test TEXT, function TEXT, module TEXT, status TEXT,
    score REAL, max_score REAL, duration REAL, feedback TEXT, misconception TEXT,
    PRIMARY KEY (student, number)
);
"""


def grader_parts(course: Course, limits, only: list[str] | None = None, pick: str | None = None) -> dict[str, str]:
    """What a grade depends on besides the submission, part by part (``REGRADE_REASONS``): a
    stored result says which of them changed since it was graded. The points of ``points.toml``
    are a part of their own: a change of them alone rescores the stored outcomes (``rescore``)."""
    from attnlab.points import POINTS_FILE

    digest = hashlib.sha256()
    folders = [course.hidden_tests_dir, course.solutions_dir]
    points_file = course.hidden_tests_dir / POINTS_FILE
    for path in sorted(
        p for folder in folders for p in folder.rglob("*") if p.is_file() and p.suffix in (".py", ".toml", ".ini")
    ):
        if path != points_file:
            digest.update(str(path.relative_to(course.root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return {
        "tests": digest.hexdigest(),
        **_points_parts(course),
        "limits": repr(limits),
        "files": f"{sorted(only or course.modules)} pick={pick}",
        "engine": __version__,
    }


def _points_parts(course: Course) -> dict[str, str]:
    """``points.toml`` in two parts: which tests pay which (``paid``), and the numbers (``points``)."""
    from attnlab.course import CourseError
    from attnlab.points import POINTS_FILE, load_table

    try:
        table = load_table(course.hidden_tests_dir)
    except CourseError:  # graded, where the error is told; a fix of it regrades
        path = course.hidden_tests_dir / POINTS_FILE
        raw = path.read_bytes() if path.is_file() else b""
        return {"paid": hashlib.sha256(raw).hexdigest(), "points": ""}
    paid = sorted((f"{k[0]}.{k[1]}", list(v), table.because.get(k, "values")) for k, v in table.paid_with.items())
    points = sorted((f"{k[0]}.{k[1]}", v) for k, v in table.points.items())
    return {
        "paid": hashlib.sha256(json.dumps(paid).encode()).hexdigest(),
        "points": hashlib.sha256(json.dumps(points).encode()).hexdigest(),
    }


REGRADE_REASONS = {
    "tests": "the hidden tests or the reference solutions changed",
    "paid": "which tests pay which changed (points.toml)",
    "points": "the points changed (points.toml)",
    "limits": "the limits changed (--timeout, --budget, --memory)",
    "files": "the files graded changed (--only, --track, --pick)",
    "engine": "attnlab changed",
}


def grader_fingerprint(course: Course, limits, only: list[str] | None = None, pick: str | None = None) -> str:
    """What a grade depends on besides the submission: hidden tests, reference, limits, engine,
    and which exercise files are graded (one hash of ``grader_parts``)."""
    return fingerprint_of(grader_parts(course, limits, only, pick))


def fingerprint_of(parts: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def why_regraded(stored: "StoredResult | None", fingerprint: str, parts: dict[str, str]) -> str | None:
    """Why a student's submission is graded (again), in a few words; None when its stored result
    is current."""
    if stored is None:
        return "not graded before"
    if stored.fingerprint != fingerprint:
        if str(stored.fingerprint).partition(":")[0] != fingerprint.partition(":")[0]:
            return "attnlab changed how it reads a submission since it was graded (a regrade once)"
        return "the submission changed since it was graded"
    if stored.grader == fingerprint_of(parts):
        return None
    before = stored.data.get("grader_parts")
    changed = [REGRADE_REASONS[k] for k in REGRADE_REASONS if isinstance(before, dict) and before.get(k) != parts[k]]
    return "; ".join(changed) or "the grader changed since it was graded"


class ResultsNotSaved(Exception):
    """The results folder cannot take a result (a full disk, a folder gone): the run must stop,
    and what was saved before stays as it was. The message is one line."""


def _not_saved(folder: Path, error: Exception) -> ResultsNotSaved:
    reason = getattr(error, "strerror", None) or str(error)
    return ResultsNotSaved(
        f"cannot save the results in {folder}: {reason}; the results saved before are kept, and the same command goes on once there is room"
    )


class ResultsOfAnotherClass(Exception):
    """The results folder holds another class's results; the message is one line."""


def default_results_folder(class_folder: Path) -> Path:
    """``CLASS.results/`` beside the class folder: each class has its own."""
    class_folder = Path(class_folder).resolve()
    return class_folder.parent / f"{class_folder.name}.results"


def holds_results(folder: Path) -> bool:
    """Is ``folder`` a class's results folder (and so never a student's submission)?"""
    return (Path(folder) / CLASS_NAME).is_file()


@dataclass
class StoredResult:
    student: str
    fingerprint: str
    grader: str
    error: str | None
    report: dict | None
    data: dict


class ResultStore:
    """The results folder of one class."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)

    def path(self, student: str) -> Path:
        return self.folder / f"{student}.json"

    def claim(self, class_folder: Path) -> None:
        """Make this the results folder of ``class_folder``: a new folder (or one of an earlier
        version, which named no class) is marked as its; one marked for another class raises
        ``ResultsOfAnotherClass``, before anything is graded or saved."""
        class_folder = Path(class_folder).resolve()
        marker = self.folder / CLASS_NAME
        try:
            named = marker.read_text(encoding="utf-8").removesuffix("\n")
        except FileNotFoundError:
            named = None
        except (OSError, UnicodeDecodeError) as error:
            raise _not_saved(self.folder, error) from None
        if named is None:
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
                write_text_atomically(marker, f"{class_folder}\n")
            except OSError as error:
                raise _not_saved(self.folder, error) from None
        elif named != str(class_folder):
            raise ResultsOfAnotherClass(
                f"{self.folder} holds the results of the class in {inert.terminal_text(named)}, not of {class_folder}: "
                f"give this class a results folder of its own (the default is {default_results_folder(class_folder)})"
            )

    def load(self, student: str) -> StoredResult | None:
        try:
            data = json.loads(self.path(student).read_text())
            report = data.get("report")
            if report is not None and not (isinstance(report, dict) and isinstance(report.get("tests"), list)):
                return None  # edited by hand, or not ours: graded again rather than trusted
            return StoredResult(data["student"], data["fingerprint"], data["grader"], data.get("error"), report, data)
        except (OSError, ValueError, KeyError, TypeError):
            return None  # missing, or unreadable: either way it is graded (again)

    def is_current(self, student: str, fingerprint: str, grader: str) -> bool:
        stored = self.load(student)
        return stored is not None and stored.fingerprint == fingerprint and stored.grader == grader

    def save(
        self,
        student: str,
        *,
        source: str,
        fingerprint: str,
        grader: str,
        report: dict | None,
        error: str | None,
        grader_parts: dict | None = None,
        also: tuple[str, ...] = (),
    ) -> dict:
        data = {  # the source and an error may name a student's folder: stored inert, as reports are
            "student": student,
            "source": inert.terminal_text(source),
            "fingerprint": fingerprint,
            "grader": grader,
            "grader_parts": grader_parts,
            "also": [inert.terminal_text(other) for other in also],
            "graded_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "error": None if error is None else inert.terminal_text(error),
            "report": report,
        }
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            write_json_atomically(self.path(student), data)
        except OSError as error:  # the file as it was, or none: never half of one
            raise _not_saved(self.folder, error) from None
        return data

    def remember_before(self, before: dict[str, float | None]) -> None:
        """Keep the scores a run is about to change (``BEFORE_NAME``), beside those an interrupted
        run kept, so that the run that finishes the regrade still lists every change."""
        kept = {**before, **self.before_kept()}  # the oldest score wins: what the regrade changed
        if kept:
            try:
                write_json_atomically(self.folder / BEFORE_NAME, kept)
            except OSError as error:
                raise _not_saved(self.folder, error) from None

    def before_kept(self) -> dict[str, float | None]:
        """The scores before a regrade that has not finished (``remember_before``); empty when none."""
        try:
            kept = json.loads((self.folder / BEFORE_NAME).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(kept, dict):
            return {}
        return {str(k): v for k, v in kept.items() if v is None or isinstance(v, (int, float))}

    def forget_before(self) -> None:
        """The regrade finished and its changes were listed: nothing to carry over."""
        (self.folder / BEFORE_NAME).unlink(missing_ok=True)

    def all(self, students: list[str] | None = None) -> list[StoredResult]:
        """Stored results, of these students (default: every file in the folder), by student id."""
        names = students if students is not None else sorted(p.stem for p in self.folder.glob("*.json"))
        return [r for r in (self.load(n) for n in names) if r is not None]


def build_gradebook(results: list[StoredResult], path: Path) -> Path:
    """Write the SQLite gradebook (one row per student and test) from stored results, atomically."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        _write_gradebook(results, temporary)
        os.replace(temporary, path)
    except (OSError, sqlite3.Error) as error:  # the gradebook as it was, and no half-written copy
        for leftover in (temporary, temporary.with_name(temporary.name + "-journal")):
            leftover.unlink(missing_ok=True)
        raise _not_saved(path.parent, error) from None
    return path


def _write_gradebook(results: list[StoredResult], temporary: Path) -> None:
    temporary.unlink(missing_ok=True)
    connection = sqlite3.connect(temporary)
    try:
        connection.executescript(_SCHEMA)
        for result in results:
            report = result.report or {}
            connection.execute(
                "INSERT INTO submissions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    result.student,
                    report.get("score", 0.0),
                    report.get("max_score"),
                    result.error,
                    result.data.get("graded_at"),
                    report.get("duration"),
                    report.get("sandbox"),
                    result.fingerprint,
                    result.data.get("source"),
                ),
            )
            for number, test in enumerate(report.get("tests", []), start=1):
                connection.execute(
                    "INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        result.student,
                        number,
                        test["name"],
                        test["function"],
                        test["module"],
                        test["outcome"],
                        test["score"],
                        test["max_score"],
                        test["duration"],
                        test["feedback"],
                        test["misconception"],
                    ),
                )
        connection.commit()
    finally:
        connection.close()


def gradebook_csv(results: list[StoredResult], modules: list[str]) -> str:
    """One row per student: id, total, maximum, and the points of each exercise file.

    The shape an LMS grade import takes (Canvas, Moodle: a student column and number columns).
    """
    rows = [["student", "total", "max_total", *modules, "error"]]
    # A submission that could not be graded is 0 of the class's points, not 0 of nothing.
    possible = max(((r.report or {}).get("max_score") or 0.0 for r in results), default=0.0)
    for result in results:
        per_module = dict.fromkeys(modules, 0.0)
        report = result.report or {}
        for test in report.get("tests", []):
            per_module[test["module"]] = per_module.get(test["module"], 0.0) + test["score"]
        rows.append(
            [
                result.student,
                round(report.get("score", 0.0), 4),
                report.get("max_score") or possible,
                *(round(per_module[m], 4) for m in modules),
                result.error or "",
            ]
        )
    out = io.StringIO()
    inert.write_csv(out, rows)  # ids and errors are the students' words: no cell may be a formula
    return out.getvalue()


def write_csv(results: list[StoredResult], modules: list[str], path: Path, excel: bool = False) -> None:
    """The gradebook CSV at ``path``; ``excel``: with UTF-8's byte order mark, which Excel needs to
    read names such as José."""
    write_text_atomically(path, ("\ufeff" if excel else "") + gradebook_csv(results, modules))
