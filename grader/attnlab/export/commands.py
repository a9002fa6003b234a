"""The course exports' commands: ``attnlab export nbgrader|gradescope``, ``attnlab release`` and
``attnlab stubs`` (``cli`` adds them to the ``attnlab`` command)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from attnlab.course import CourseError, find_course
from attnlab.errors import UserError, user_errors, writing
from attnlab.intake.roster import RosterError, SubmissionError
from attnlab.options import COURSE_OPTION
from attnlab.wording import count

library_errors = user_errors(CourseError, RosterError, SubmissionError)


@click.group()
def export() -> None:
    """Export the course to the tools schools run: nbgrader, Gradescope."""


@export.command("nbgrader")
@click.argument("course_out", metavar="COURSE_DIR", type=click.Path(path_type=Path, file_okay=False))
@click.option("--assignment", default="attnlab", show_default=True, help="The nbgrader assignment the notebooks go in.")
@COURSE_OPTION
@library_errors
def export_nbgrader(course_out: Path, assignment: str, course_dir: Path | None) -> None:
    """Write an nbgrader course: nbgrader_config.py and source/ASSIGNMENT/, one notebook per file.

    Solution cells are marked for nbgrader; each hidden test is an autograded cell with the
    grader's points, its body in a hidden-tests block. Then, in COURSE_DIR: nbgrader
    generate_assignment ASSIGNMENT, and after collecting, nbgrader autograde ASSIGNMENT.
    Autograding needs attnlab installed and this course folder ($ATTNLAB_COURSE overrides it).
    """
    from attnlab import console
    from attnlab.export.nbgrader import export_course

    course = find_course(course_dir)
    try:
        written = export_course(course, course_out, assignment)
    except ImportError:
        raise UserError(
            "the nbgrader export writes notebooks with nbformat: pip install nbformat (or nbgrader)"
        ) from None
    console.err.print(
        f"Wrote {course_out}/nbgrader_config.py and {count(len(written), 'notebook')} in {course_out}/source/{assignment}/"
    )


@export.command("gradescope")
@click.argument("zip_path", metavar="AUTOGRADER_ZIP", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--torch-version",
    default="2.13.0",
    show_default=True,
    help="The torch release setup.sh installs on Gradescope's image (its CPU build).",
)
@click.option(
    "--visibility",
    type=click.Choice(["visible", "after_due_date", "hidden"]),
    default="visible",
    show_default=True,
    help="When students see the hidden tests' results on Gradescope: at once, after the due date, or never (hidden: staff only).",
)
@COURSE_OPTION
@library_errors
def export_gradescope(zip_path: Path, torch_version: str, visibility: str, course_dir: Path | None) -> None:
    """Write Gradescope's autograder zip: setup.sh, run_autograder, the grader and the hidden tests.

    setup.sh installs a Python that the course allows (Gradescope's default image has 3.10),
    torch's CPU build and the grader. run_autograder grades /autograder/submission with the
    sandboxed grader and writes /autograder/results/results.json ($ATTNLAB_AUTOGRADER_ROOT moves
    /autograder, for testing).
    """
    from attnlab import console
    from attnlab.export.gradescope import build_autograder_zip

    course = find_course(course_dir)
    with writing(zip_path):
        names = build_autograder_zip(course, zip_path, torch_version, visibility)
    console.err.print(f"Wrote {zip_path} ({count(len(names), 'file')}); upload it as the assignment's autograder")


def roster_summary(path: Path, read) -> str:
    """One line: how many students the release is for, and what of the roster was not a student."""
    line = f"released to {count(len(read.ids), 'student')} (read from {path}: {count(len(read.ids), 'student')}"
    if read.skipped:
        line += f"; {_listed(read.skipped)} skipped"
    if read.by_other_id:
        line += f"; read by another id: {'; '.join(read.by_other_id)}"
    return line + ")"


def _listed(things) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    things = list(things)
    return things[0] if len(things) == 1 else f"{', '.join(things[:-1])} and {things[-1]}"


@click.command()
@click.argument("out_dir", metavar="OUT_DIR", type=click.Path(path_type=Path, file_okay=False))
@click.option(
    "--roster",
    type=click.Path(path_type=Path, dir_okay=False),
    help="The class list: a plain list of student ids, one a line, or a class-list CSV (an LMS's export); each quiz's exam copy holds their questions (no roster: no exam copies).",
)
@COURSE_OPTION
@library_errors
def release(out_dir: Path, roster: Path | None, course_dir: Path | None) -> None:
    """Write the bundle students get to OUT_DIR: stubs, public tests, quiz copies, the engine, the students' guide.

    Every quiz gets a practice copy; only with --roster does it get an exam copy (the roster's
    questions), which `attnlab quiz take QUIZ --mode exam` needs. It holds no solutions, hidden
    tests, answer keys or misconception catalogue: the bundle is scanned for each before it is
    kept, and a release that would leak is not written.
    """
    from attnlab import console
    from attnlab.export.release import build
    from attnlab.export.release_progress import ReleaseProgress
    from attnlab.intake.class_list import read_roster

    course = find_course(course_dir)
    read = read_roster(roster) if roster is not None else None  # before anything is written
    students = read.ids if read is not None else []
    with ReleaseProgress(console.err) as progress:
        made = build(course, out_dir, students, progress)
    exams = f"practice copies, and exam copies for {count(len(students), 'student')}" if students else "practice copies"
    kept = (
        f"; {count(made.kept_practice, 'practice copy', 'practice copies')} kept from an earlier release"
        if made.kept_practice
        else ""
    )
    console.err.print(
        f"Wrote {made.folder}: {count(made.exercise_files, 'exercise file')}, {count(made.quizzes, 'quiz')} ({exams}{kept}); scanned: no solutions, hidden tests or answers"
    )
    if read is not None:
        console.err.print(roster_summary(roster, read))
    if not students and made.quizzes:
        console.err.print(
            "No --roster, so no exam copies: `attnlab quiz take QUIZ --mode exam` has no exam to open in this"
            " bundle. For the exam, write them with attnlab quiz student-copy QUIZ --mode exam --roster ROSTER"
            " -o QUIZ.exam.json (or release again with --roster) and give them out."
        )


@click.command()
@click.option("--check", "check_only", is_flag=True, help="Do not write; exit 1 if any stub is out of date.")
@COURSE_OPTION
@library_errors
def stubs(check_only: bool, course_dir: Path | None) -> None:
    """Regenerate the student stubs in exercises/ from the reference solutions, and the probe book
    (the catalogue's diagnostic probes as data, beside the public tests)."""
    from attnlab.export.probe_book import book_path, stale_probe_book, write_probe_book
    from attnlab.export.stubs import stale_stubs, write_stubs

    course = find_course(course_dir)
    if not course.solutions_dir.is_dir():
        raise UserError(f"{course.solutions_dir} is missing: stubs are generated from the solutions")
    if check_only:
        stale = stale_stubs(course.solutions_dir, course.exercises_dir, list(course.modules))
        if stale_probe_book(course):
            stale.append(f"{book_path(course).relative_to(course.root)} (the catalogue's probes)")
        if stale:
            click.echo(f"out of date: {', '.join(stale)} (run: attnlab stubs)", err=True)
            sys.exit(1)
        click.echo("exercises/ is up to date", err=True)
        return
    changed = write_stubs(course.solutions_dir, course.exercises_dir, list(course.modules))
    if write_probe_book(course):
        changed.append(str(book_path(course).relative_to(course.root)))
    click.echo(f"wrote {', '.join(changed)}" if changed else "exercises/ was already up to date", err=True)
