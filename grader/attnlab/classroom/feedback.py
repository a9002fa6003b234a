"""Feedback to hand back: from a class's stored results, a folder per student, as nbgrader's
``generate_feedback`` writes, and the class's summary page. Nothing is graded again.

``OUT/<student>/feedback.html`` is the student's report (``report.html``), ``OUT/<student>/feedback.md``
the same as Markdown for an LMS comment (``report.markdown``), ``OUT/_class-summary.html`` the class's
page (``report.class_html``). A student's folder holds their own feedback only, ready to return.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from attnlab.atomic import write_text_atomically
from attnlab.classroom.gradebook import ResultStore, default_results_folder, holds_results
from attnlab.course import Course
from attnlab.misconceptions import load_catalogue
from attnlab.report.class_html import render_class_html
from attnlab.report.html import render_html, render_not_graded_html
from attnlab.report.markdown import render_markdown, render_not_graded_markdown
from attnlab.results import GradeReport
from attnlab.intake.class_folder import find_entries
from attnlab.intake.roster import RosterError, safe_id, shown

# No student id starts with "_" (``roster.safe_id``): no student's folder can take this name.
SUMMARY_NAME = "_class-summary.html"


class FeedbackError(Exception):
    """Feedback cannot be written as asked (no results, an unknown student, a bad folder); the
    message is one line."""


@dataclass(frozen=True)
class FeedbackWritten:
    """What ``write_class_feedback`` wrote."""

    folder: Path
    students: list[str]
    """The students given a folder, by id."""
    summary: Path | None
    """The class's page (not written when only some students were asked for)."""
    changed: list[str]
    """Students whose submission changed since it was graded: their feedback is of the old one."""
    not_graded: list[str]
    """Students of the class folder with no stored result."""


def default_feedback_folder(class_folder: Path) -> Path:
    """``CLASS.feedback/`` beside the class folder, as its results are in ``CLASS.results/``."""
    class_folder = Path(class_folder).resolve()
    return class_folder.parent / f"{class_folder.name}.feedback"


def stored_reports(store: ResultStore) -> dict[str, dict]:
    """Each student's stored result (its data) by id: the files named by a student id, whose
    content names the same student (a file edited to name another is not taken)."""
    found = {}
    for path in sorted(store.folder.glob("*.json")):
        student = path.stem
        if safe_id(student) != student:
            continue  # not a name attnlab gives a result (``...json`` would be the folder above)
        stored = store.load(student)
        if stored is not None and stored.student == student:
            found[student] = stored.data
    return found


def _report(data: dict, path: Path) -> GradeReport | None:
    if data.get("report") is None:
        return None
    try:
        return GradeReport.from_dict(data["report"])
    except ValueError as error:
        raise FeedbackError(f"{path}: {error}; grade this student again (attnlab grade CLASS --student ID)") from None


def write_student_feedback(folder: Path, student: str, data: dict, source: Path) -> None:
    """``folder``/feedback.html and feedback.md of one stored result (``source`` is its file)."""
    report = _report(data, source)
    if report is None:
        error = str(data.get("error") or "no result was saved")
        pages = render_not_graded_html(student, error), render_not_graded_markdown(student, error)
    else:
        pages = render_html(report, name=student), render_markdown(report, student)
    for name, text in zip(("feedback.html", "feedback.md"), pages):
        write_text_atomically(folder / name, text)


def write_class_feedback(
    course: Course,
    class_folder: Path,
    *,
    out: Path | None = None,
    results: Path | None = None,
    students: list[str] | None = None,
) -> FeedbackWritten:
    """Write the feedback of ``students`` (default: every student with a stored result) and, for
    the whole class, its summary page; from the results of ``attnlab grade`` (``results``,
    default ``CLASS.results/``)."""
    class_folder = Path(class_folder)
    store = ResultStore(results or default_results_folder(class_folder))
    if not holds_results(store.folder):
        raise FeedbackError(f"no results in {store.folder}: grade the class first (attnlab grade {class_folder})")
    out = Path(out) if out is not None else default_feedback_folder(class_folder)
    if class_folder.is_dir() and out.resolve().is_relative_to(class_folder.resolve()):
        raise FeedbackError(
            f"{out} is inside the class folder, where the next grading would take it for a student's submission: choose a folder outside it"
        )
    stored = stored_reports(store)
    if students:
        asked = list(dict.fromkeys(safe_id(s) for s in students))
        missing = [s for s in asked if s not in stored]
        if missing:
            raise FeedbackError(
                f"no stored result for {', '.join(missing)} in {store.folder}: grade them first (attnlab grade {class_folder} --student {missing[0]})"
            )
        chosen = asked
    else:
        chosen = list(stored)
        if not chosen:
            raise FeedbackError(
                f"no student's result in {store.folder}: grade the class first (attnlab grade {class_folder})"
            )
    changed, not_graded = [], []
    try:
        entries = {e.student: e for e in find_entries(class_folder, course)} if class_folder.is_dir() else {}
    except RosterError:
        entries = {}
    # A download graded with --roster saved its students under the roster's ids: found by their entry.
    by_source = {data.get("source"): student for student, data in stored.items()}
    for found_as, entry in entries.items():
        student = found_as if found_as in stored else by_source.get(shown(entry.source), found_as)
        if student not in stored:
            not_graded.append(student)
        elif student in chosen and entry.fingerprint(course) != stored[student].get("fingerprint"):
            changed.append(student)
    for student in chosen:
        write_student_feedback(out / student, student, stored[student], store.path(student))
    summary = None
    if not students:
        summary = out / SUMMARY_NAME
        results_data = [{**stored[s], "student": s} for s in chosen]
        # The catalogue of the files with a named mistake only: the torch track's imports torch.
        named = sorted(
            {
                t.get("module")
                for d in results_data
                for t in (d.get("report") or {}).get("tests", [])
                if t.get("misconception")
            }
            & set(course.modules)
        )
        catalogue = load_catalogue(course, named) if named else []
        write_text_atomically(
            summary, render_class_html(class_folder.resolve().name, results_data, catalogue, linked=set(chosen))
        )
    return FeedbackWritten(out, chosen, summary, changed, not_graded)
