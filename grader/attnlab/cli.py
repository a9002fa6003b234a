"""The ``attnlab`` command: thin glue over the library.

Errors become one line on stderr and a non-zero exit here, at the edge, and
nowhere else: each command's library errors through one decorator
(``errors.user_errors``). Heavy imports (pytest, numpy, rich) happen inside the
commands that need them, so ``attnlab --help`` and the quiz start fast.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import click

from attnlab.course import CourseError, find_course
from attnlab.errors import GraderError, UserError, user_errors, writing
from attnlab.export.sheets.options import LMS_OPTIONS
from attnlab.options import COURSE_OPTION, limit_options
from attnlab.intake.roster import RosterError, SubmissionError
from attnlab.wording import count

# What the library raises about something the user can fix (a release's refusal and a stub's
# malformed region are CourseErrors).
library_errors = user_errors(CourseError, RosterError, SubmissionError)

# The student release ships the engine without its instructor's side (``export.release``): these
# commands are not offered there, and asking for one says why in one line.
INSTRUCTOR_COMMANDS = ("grade", "feedback", "gradebook", "similarity", "audit", "stubs", "release", "export", "new")
IN_STUDENT_RELEASE = not (Path(__file__).parent / "grading").is_dir()

STUDENT_HELP = """
    \b
    Students:    attnlab check            run the public tests on your exercises/
                 attnlab quiz take QUIZ   take a quiz in the terminal
                 attnlab lab induction    watch induction heads form in a model of your own attention"""
INSTRUCTOR_HELP = """
    Instructors: attnlab grade FOLDER     grade a submission, or a whole class, with the hidden tests
                 attnlab feedback CLASS   each student's feedback page, from the class's results
                 attnlab gradebook merge  one gradebook of a class graded in shards (--shard K/N)
                 attnlab similarity CLASS pairs of students whose code is alike (a signal to look at)
                 attnlab audit            would the hidden tests catch a bug? (their mutation score)
                 attnlab stubs            regenerate exercises/ from solutions/
                 attnlab new exercise N   add an exercise file: every file it needs, with an example
                 attnlab release DIR      the bundle students get (no solutions, tests or answers)
                 attnlab export --help    nbgrader course, Gradescope autograder zip
                 attnlab quiz --help      key, grade, lint and export quizzes"""


class CommandGroup(click.Group):
    """The main command: in the student release, without the instructor's commands."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [name for name in super().list_commands(ctx) if not (IN_STUDENT_RELEASE and name in INSTRUCTOR_COMMANDS)]

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if IN_STUDENT_RELEASE and name in INSTRUCTOR_COMMANDS:
            raise UserError(
                f"`attnlab {name}` is for instructors: the student bundle has only `attnlab check` and `attnlab quiz take`"
            )
        return super().get_command(ctx, name)


@click.group(
    cls=CommandGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    help="attnlab: a course on self-attention that grades itself.\n"
    + STUDENT_HELP
    + ("" if IN_STUDENT_RELEASE else INSTRUCTOR_HELP),
)
@click.version_option(package_name="attnlab")
def main() -> None:
    pass


@main.command()
@click.argument("path", metavar="PATH", type=click.Path(path_type=Path))
@click.option(
    "--json",
    "json_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="One submission: also write Gradescope-format results to this file.",
)
@click.option(
    "--only", multiple=True, metavar="FILE", help="Grade only this exercise file (e.g. softmax); repeat for more."
)
@click.option(
    "--track", "tracks", multiple=True, metavar="NAME", help="Grade only this track's files: numpy, or torch."
)
@click.option(
    "--explain",
    is_flag=True,
    help="One submission (or a class's --student): show the whole feedback of every failing test, its heatmaps, and what the code printed.",
)
@click.option(
    "--verbose",
    is_flag=True,
    help="Say in full what the sandbox guarantees (one line without it; a class's HTML report has it in full).",
)
@click.option(
    "--html",
    "html_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="One submission: also write an HTML report (feedback and heatmaps) to this file.",
)
@click.option(
    "--results",
    "results_dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="A class: the results folder (default: CLASS.results/ next to the class folder). It belongs to one class: another class's is refused.",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="A class: submissions graded at once (default: the machine's cores, fewer where memory is short).",
)
@click.option(
    "--student",
    "students",
    multiple=True,
    metavar="ID",
    help="A class: (re)grade only this student and print their own table; repeat for more.",
)
@click.option(
    "--assignment",
    metavar="NAME",
    help="A class in nbgrader's layout: the assignment to grade (default: each student's newest).",
)
@click.option(
    "--layout",
    type=click.Choice(["folders", "nbgrader", "gradescope", "canvas", "moodle"]),
    default=None,
    help="A class: read the folder as this layout (default: the one it is): a folder or .zip per student, nbgrader's submitted/, a Gradescope export, Canvas's or Moodle's download of the submissions.",
)
@click.option(
    "--csv",
    "csv_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="A class: also export the gradebook as CSV (student, total, points per exercise file; with --roster or --format, the sheet an LMS imports).",
)
@limit_options(
    "Seconds of CPU time one call of a student function may take (the clock ends a call that waits, 10 times later).",
    "Seconds of CPU time all of one submission's calls may take together.",
)
@click.option(
    "--pick",
    type=click.Choice(["newest"]),
    default=None,
    help="A submission with drafts (v1/, v2/: folders that each hold the exercise files): grade the newest (default: refuse it, saying why).",
)
@click.option(
    "--excel",
    is_flag=True,
    help="Write the CSV as UTF-8 with a byte order mark, which Excel needs to read names such as José or 张文, as Excel saves a CSV UTF-8 file.",
)
@click.option(
    "--shard",
    metavar="K/N",
    default=None,
    help="A class: grade only shard K of N (a hash of each student id; default results: CLASS.results/shard-K-of-N/). Merge the shards with attnlab gradebook merge.",
)
@LMS_OPTIONS
@click.option(
    "--no-sandbox",
    "in_process",
    is_flag=True,
    hidden=True,
    help="Run the code in this process (benchmark baseline only).",
)
@COURSE_OPTION
@library_errors
def grade(
    path: Path,
    json_path,
    only,
    tracks,
    explain,
    verbose,
    html_path,
    results_dir,
    jobs,
    students,
    assignment,
    layout,
    csv_path,
    timeout,
    budget,
    memory_mib,
    pick,
    excel,
    shard,
    roster_path,
    lms_format,
    lms_column,
    in_process,
    course_dir,
) -> None:
    """Grade PATH with the hidden tests: one submission, or a whole class.

    \b
    One submission: a folder of exercise files (softmax.py, scores.py, ...,
    or notebooks: softmax.ipynb, ...), or a .zip of one.
    A class: a folder with one folder or .zip per student (named by student id),
    or nbgrader's submitted/<student>/<assignment>/, or a Gradescope export,
    or Canvas's or Moodle's download of the submissions, unzipped (each student's
    files graded once, under the roster's id with --roster).

    Each call into the student's code runs in a sandboxed worker with a deadline
    and memory limits; expected values are computed here, in the grader. A class
    is graded in parallel; each result is saved in CLASS.results/<student>.json as
    it finishes, and CLASS.results/gradebook.sqlite is rebuilt from them. Running
    the same command again grades only what is missing or changed since.

    The exit status is 0 whenever grading completed, whatever the scores; 1 when the grader
    itself failed (its sandbox, its reference, a full results disk), with nothing of it saved.
    """
    from attnlab.sandbox.host import Limits

    course = find_course(course_dir)
    limits = Limits(call_seconds=timeout, memory_bytes=memory_mib << 20, submission_seconds=budget)
    from attnlab.lifecycle import keep_hypothesis_in_scratch

    keep_hypothesis_in_scratch()  # not .hypothesis/ in whatever folder grade is run from
    from attnlab.classroom.shards import parse_shard
    from attnlab.export.sheets.commands import load_roster, refuse_without
    from attnlab.intake.lms_downloads import class_folder_words
    from attnlab.intake.roster import is_submission

    if path.is_dir() and (layout is not None or not is_submission(path, course)):
        for flag, given in (
            ("--json", json_path),
            ("--explain", explain and not students),
            ("--html", html_path),
            ("--no-sandbox", in_process),
        ):
            if given:
                raise UserError(
                    f"{flag} is for one submission (or a class's --student); {path} is {class_folder_words(path)}"
                )
        refuse_without(csv_path, None, lms_format, lms_column)  # a roster alone maps an LMS download's ids
        try:
            shard = parse_shard(shard) if shard else None
        except ValueError as error:
            raise UserError(f"--shard: {error}") from None
        if shard and csv_path:
            raise UserError(
                "--csv is for the whole class: merge the shards (attnlab gradebook merge), then write the CSV"
            )
        if excel and not csv_path:
            raise UserError("--excel shapes the CSV: give --csv FILE too")
        lms = (load_roster(roster_path), lms_format, lms_column)
        _grade_class(
            course,
            path,
            limits,
            results_dir,
            jobs,
            list(students),
            assignment,
            csv_path,
            course.select(only, tracks),
            explain,
            shard,
            lms,
            pick,
            excel,
            layout,
            verbose,
        )
        return
    for flag, given in (
        ("--results", results_dir),
        ("--jobs", jobs),
        ("--student", students),
        ("--assignment", assignment),
        ("--layout", layout),
        ("--csv", csv_path),
        ("--excel", excel),
        ("--shard", shard),
        ("--roster", roster_path),
        ("--format", lms_format),
        ("--column", lms_column),
    ):
        if given:
            raise UserError(f"{flag} is for a class folder; {path} is one submission")
    _grade_one(
        course,
        path,
        limits,
        json_path,
        course.select(only, tracks) or [],
        explain,
        html_path,
        in_process,
        pick,
        verbose,
    )


def _grade_one(
    course, submission: Path, limits, json_path, only, explain, html_path, in_process, pick=None, verbose=False
) -> None:
    """Grade one submission, staged as a class's entry is (its exercise files of a folder, a .zip or
    notebooks, no link in it followed), and report it."""
    from attnlab import console
    from attnlab.atomic import write_json_atomically, write_text_atomically
    from attnlab.grading.suite import grade, grade_entry
    from attnlab.lifecycle import remove_stale_scratch
    from attnlab.outcomes import GraderFailure
    from attnlab.report.terminal import render
    from attnlab.intake.roster import Entry

    remove_stale_scratch()  # what a killed run left: copies of students' code
    from attnlab.intake.lms_downloads import download_hint

    # Part or all of an LMS's download is no one submission: what to grade instead, before grading it.
    if submission.is_file() and not submission.is_symlink() and (hint := download_hint(submission)):
        raise SubmissionError(hint)
    if not submission.is_dir() and not submission.is_symlink() and submission.suffix != ".zip":
        raise SubmissionError(
            f"{submission}: no such folder"
            if not submission.exists()
            else f"{submission}: not a folder (a submission is a folder of exercise files, or a .zip of one)"
        )
    try:
        with console.err.status(f"Grading {submission} …"):
            report = grade_entry(
                course,
                Entry(submission.stem, submission),
                "attnlab-staged",
                lambda folder: grade(course, folder, only=only or None, in_process=in_process, limits=limits),
                pick,
            )
    except GraderFailure as failure:
        raise GraderError(f"not graded: {failure}") from None
    except RosterError as refused:  # the instructor reads it here, with the options they have
        from attnlab.intake.misnamed import for_instructor

        if for_instructor(str(refused)) == str(refused):
            raise
        raise RosterError(for_instructor(str(refused))) from None
    render(report, console.out, explain=explain, verbose=verbose)
    outputs = []
    if json_path is not None:
        outputs.append((json_path, lambda path: write_json_atomically(path, report.to_gradescope())))
    if html_path is not None:
        from attnlab.report.html import render_html

        outputs.append((html_path, lambda path: write_text_atomically(path, render_html(report))))
    for path, write in outputs:
        with writing(path):
            write(path)
        console.err.print(f"Wrote {path}")


def _grade_class(
    course,
    folder: Path,
    limits,
    results_dir,
    jobs,
    students,
    assignment,
    csv_path,
    only=None,
    explain=False,
    shard=None,
    lms=(None, None, None),
    pick=None,
    excel=False,
    layout=None,
    verbose=False,
) -> None:
    from attnlab import console
    from attnlab.classroom.gradebook import (
        ResultsNotSaved,
        ResultsOfAnotherClass,
        ResultStore,
        default_results_folder,
        write_csv,
    )
    from attnlab.classroom.grading import grade_class, plan_class
    from attnlab.classroom.jobs import available_memory, choose_jobs
    from attnlab.lifecycle import interrupted_by_termination
    from attnlab.classroom.shards import mark_shard
    from attnlab.export.sheets.commands import wants_sheet, write_sheet
    from attnlab.export.sheets.grades import Score
    from attnlab.misconceptions import load_catalogue
    from attnlab.outcomes import GraderFailure
    from attnlab.report.class_figures import write_not_graded
    from attnlab.report.class_summary import ClassProgress, render_class_summary, score_changes, why_grading
    from attnlab.report.terminal import render_students
    from attnlab.report.sandbox_line import in_one_line
    from attnlab.sandbox.host import describe_mode

    store = ResultStore(
        results_dir or (default_results_folder(folder) / shard.folder_name if shard else default_results_folder(folder))
    )
    plan = plan_class(
        course,
        folder,
        store,
        limits,
        students=students or None,
        assignment=assignment,
        only=only,
        shard=shard,
        pick=pick,
        layout=layout,
        roster=lms[0],
    )
    try:  # before any grading: a result that cannot be saved is a result lost
        store.folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=store.folder).close()
        store.claim(folder)
        if shard is not None:
            mark_shard(store.folder, shard)
    except OSError as error:
        raise UserError(f"cannot write the results to {store.folder}: {error.strerror or error}") from None
    except (ResultsOfAnotherClass, ResultsNotSaved) as error:
        raise UserError(str(error)) from None
    rescoring = f", {len(plan.rescored)} rescored (only the points changed: no code run)" if plan.rescored else ""
    console.err.print(
        f"{count(len(plan.entries), 'submission')} in {folder}{f' (shard {shard})' if shard else ''}; {len(plan.to_grade)} to grade{rescoring}, {plan.reused} unchanged since graded. Results: {store.folder}"
    )
    if plan.to_grade and plan.reused + len(plan.before):  # a regrade: why, counted by reason
        console.err.print(f"To grade: {why_grading(plan.why)}.", markup=False)
    sandbox = describe_mode()
    console.err.print(f"Sandbox: {sandbox if verbose else in_one_line(sandbox) + ' (--verbose: in full)'}")
    jobs, memory_note = choose_jobs(jobs, len(plan.to_grade), limits, available=available_memory())
    if memory_note:
        console.err.print(memory_note, style="yellow", markup=False)
    progress = ClassProgress(console.err, len(plan.to_grade))
    try:
        with interrupted_by_termination():
            outcome = grade_class(
                course,
                plan,
                store,
                limits,
                jobs=jobs,
                on_ready=progress.start,
                on_graded=progress.graded,
                on_recording=lambda: console.err.print("Recording the reference's run of the hidden tests …"),
            )
    except KeyboardInterrupt:
        progress.stop()  # before the line below: a live progress bar would draw over it
        console.err.print(
            f"Interrupted: the finished results are in {store.folder}; run the same command again to go on."
        )
        sys.exit(130)
    except GraderFailure as failure:
        raise GraderError(
            f"grading stopped: {failure}; nothing was saved for the submissions it touched, and the same command grades them once it is fixed"
        ) from None
    except ResultsNotSaved as error:
        raise GraderError(str(error)) from None
    finally:
        progress.stop()  # whatever ends the run, before its errors are shown
    stored = store.all([e.student for e in plan.entries])
    if students:  # the named students' own tables, not the class's summary
        render_students(
            console.out,
            [r for r in stored if r.student in {e.student for e in plan.to_grade}],
            explain,
            outcome.failures,
            verbose,
        )
    else:
        results = [r.data for r in stored]
        found = write_not_graded(store.folder, plan.not_graded, results)
        changed = score_changes(plan.before, results)
        render_class_summary(
            console.out,
            results,
            load_catalogue(course, only),
            graded_now=len(outcome.graded) + len(outcome.rescored),
            reused=plan.reused,
            failures=outcome.failures,
            wall=outcome.wall_seconds,
            not_graded=plan.not_graded,
            changed=changed,
            all_not_graded=found,
        )
        if not outcome.failures:
            store.forget_before()  # listed: the next run lists its own changes only
    console.err.print(f"Gradebook: {outcome.gradebook}")
    if csv_path is not None and wants_sheet(*lms):  # lms: (the roster read, the format, the column)
        # Not gradable (an empty zip) is 0 of the class's points, not 0 of 0.
        possible = max(((r.report or {}).get("max_score") or 0.0 for r in stored), default=0.0)
        scores = [
            Score(
                r.student,
                (r.report or {}).get("score", 0.0),
                (r.report or {}).get("max_score") or possible,
                tuple(r.data.get("also") or ()),
            )
            for r in stored
        ]
        write_sheet(csv_path, scores, lms[0], lms[1], lms[2] or course.name, console.err.print, excel)
        console.err.print(f"Wrote {csv_path}")
    elif csv_path is not None:
        with writing(csv_path):
            write_csv(stored, only or list(course.modules), csv_path, excel)
        console.err.print(f"Wrote {csv_path}")
    if outcome.failures:
        raise GraderError(
            f"the grader failed on {count(len(outcome.failures), 'submission')}, listed above: nothing was saved for them, and the same command grades them again"
        )


@main.group()
def new() -> None:
    """Add to the course: the files of a new exercise, ready to edit."""


@new.command("exercise")
@click.argument("name")
@click.option(
    "--after",
    metavar="FILE",
    help="Put it in course order right after this exercise file, so it may import the files up to FILE (default: last).",
)
@COURSE_OPTION
@library_errors
def new_exercise(name: str, after: str | None, course_dir: Path | None) -> None:
    """Add the exercise file NAME.py to the course, with every file it needs.

    \b
    Writes, around a worked example (NAME_example: rows scaled to unit
    length) that grades at full marks as written:
      solutions/NAME.py                  the reference, with BEGIN/END SOLUTION
      exercises/NAME.py                  the student stub, generated from it
      exercises/tests/test_NAME.py       public tests (the worked examples)
      solutions/hidden_tests/test_NAME.py  hidden tests, their points in points.toml
      solutions/misconceptions/NAME.py   a known mistake, named in feedback
      tests/submissions/buggy/...        a student file making it (in the project)
    and adds NAME to modules in exercises/course.toml (last, or --after FILE).

    Then replace the example, run `attnlab stubs`, and check with
    `attnlab grade solutions --only NAME` (full marks) and
    `attnlab grade exercises --only NAME` (zero). docs/authors.md has the steps.
    """
    from attnlab.course import Course
    from attnlab.export.probe_book import write_probe_book
    from attnlab.export.stubs import write_stubs
    from attnlab.scaffold import new_exercise as scaffold

    course = find_course(course_dir)
    made = scaffold(course, name, after)
    course = Course.load(course.root)
    write_stubs(course.solutions_dir, course.exercises_dir, [name])
    write_probe_book(course)  # the new entry's probe, as `attnlab stubs` writes it
    root = course.root
    click.echo(f"new exercise {name}.py, with the example {made.function}():", err=True)
    for path in (made.created[0], course.exercises_dir / f"{name}.py", *made.created[1:]):
        click.echo(f"  created {path.relative_to(root)}", err=True)
    for path in made.edited:
        click.echo(f"  added to {path.relative_to(root)}", err=True)
    click.echo(
        f"next: replace {made.function} in solutions/{name}.py and its tests, then `attnlab stubs`; docs/authors.md#add-an-exercise",
        err=True,
    )


def _register_groups() -> None:
    from attnlab.export.quiz.commands import export_command
    from attnlab.quiz.commands import quiz

    from attnlab.check.command import check
    from attnlab.lab.commands import lab

    quiz.add_command(export_command)
    main.add_command(quiz)
    main.add_command(check)
    main.add_command(lab)
    if not IN_STUDENT_RELEASE:
        from attnlab.audit.command import audit
        from attnlab.classroom.commands import feedback, gradebook
        from attnlab.export.commands import export, release, stubs
        from attnlab.similarity.command import similarity

        for command in (audit, feedback, gradebook, similarity, export, release, stubs):
            main.add_command(command)


_register_groups()

if __name__ == "__main__":
    main()
