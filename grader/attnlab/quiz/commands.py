"""``attnlab quiz``: take, key, grade, lint and student-copy. Glue over the quiz library.

A ``QuizError`` a command raises is shown as a ``UserError`` (``quiz_errors``), as ``cli`` does
for the course's errors.
"""

from __future__ import annotations

import getpass
import os
import signal
import sys
from collections import Counter
from pathlib import Path

import click

from attnlab.errors import UserError, user_errors, writing
from attnlab.export.sheets.options import LMS_OPTIONS
from attnlab.options import COURSE_OPTION
from attnlab.quiz.errors import QuizError
from attnlab.wording import count, points, score

quiz_errors = user_errors(QuizError)


def _quizzes_dir(course_dir: Path | None) -> Path:
    from attnlab.course import CourseError, find_course

    try:
        return find_course(course_dir).root / "quizzes"
    except CourseError:
        return Path.cwd() / "quizzes"


def reference_factory(course_dir: Path | None):
    from attnlab.course import find_course
    from attnlab.quiz.items import reference_factory_for

    return reference_factory_for(lambda: find_course(course_dir))


def instructor_quiz(name: str, course_dir: Path | None):
    """The instructor's quiz ``name`` (YAML, with its answers); a student copy is refused."""
    from attnlab.quiz.items import find_quiz
    from attnlab.quiz.schema import load_quiz

    path = find_quiz(name, _quizzes_dir(course_dir))
    if path.suffix == ".json":
        raise UserError(f"{path} is a student copy: it holds no answers; give the instructor's quiz")
    return load_quiz(path)


def _open(name: str, course_dir: Path | None, sitting: str = "practice"):
    from attnlab.quiz.items import find_quiz, open_quiz

    return open_quiz(find_quiz(name, _quizzes_dir(course_dir), sitting), reference_factory(course_dir))


def _default_student() -> str:
    return os.environ.get("ATTNLAB_STUDENT") or getpass.getuser()


QUIZ = click.argument("quiz_name", metavar="QUIZ")
EXPORT_VARIANTS = 20
"""Variants per parameterized question an export holds by default: students in one room rarely share one."""


@click.group()
def quiz() -> None:
    """Quizzes: list them and take one in the terminal; key, grade and lint them as an instructor.

    QUIZ is a quiz id from the course's quizzes/ folder (e.g. shapes), a YAML
    file, or a student copy (.json).
    """


def _print_summary(result, console, practice: bool = False) -> None:
    from rich.table import Table

    table = Table(title=f"{result.quiz} · {result.student}", title_justify="left")
    table.add_column("concept")
    table.add_column("questions", justify="right")
    table.add_column("points", justify="right")
    # A question nothing checks is worth nothing here: its row counts the questions its points are of.
    for concept, (earned, possible, checked) in result.by_concept(checked_only=True).items():
        table.add_row(concept, str(checked), score(earned, possible))
    table.add_section()
    unchecked = sum(m.max_points == 0 for m in result.marks)
    table.add_row("total", str(len(result.marks) - unchecked), score(result.score, result.max_score))
    console.print(table)
    if unchecked and practice:
        were = "was" if unchecked == 1 else "were"
        console.print(
            f"{count(unchecked, 'more question')} {were} asked as in the exam: practice records your answers to them without checking them, so they are in no row above."
        )
    elif unchecked:
        console.print(
            f"{count(unchecked, 'more answer')} {'is' if unchecked == 1 else 'are'} recorded for your instructor to check."
        )


@quiz.command()
@QUIZ
@click.option("--student", default=None, help="Your student id (default: $ATTNLAB_STUDENT, else your user name).")
@click.option(
    "--mode",
    type=click.Choice(["practice", "exam"]),
    default=None,
    help="practice: right or wrong at once; exam: answers recorded and handed in, marked by your instructor. Default: the copy's own (practice for the instructor's quiz).",
)
@click.option(
    "--answers",
    "answers_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Instructor's quiz only: mark this answers file against the student's exam variant.",
)
@click.option(
    "--answers-out",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Exam mode: where to write the answers to hand in (default: QUIZ-STUDENT.answers.yaml here).",
)
@click.option(
    "--restart", is_flag=True, help="Forget saved progress and start again (not for an exam already handed in)."
)
@COURSE_OPTION
@quiz_errors
def take(quiz_name, student, mode, answers_file, answers_out, restart, course_dir) -> None:
    """Take QUIZ in the terminal. Type hint, skip, back or quit at any prompt; progress is saved after every answer.

    An exam ends on a review of every answer: type a question's number to go back to it, and hand in
    (then yes) to hand the exam in. A matrix is typed one row a line, or on one line with ; between
    the rows."""
    from attnlab.quiz import marking, runner

    opened = _open(quiz_name, course_dir, mode or "practice")
    mode = mode or opened.sitting or "practice"
    if opened.sitting is not None and opened.sitting != mode:
        raise UserError(
            f"this is the {opened.sitting} copy of {opened.id!r}: it cannot be taken in {mode} mode (ask your instructor for the {mode} copy)"
        )
    if answers_file is not None:
        if opened.sitting is not None:
            raise UserError(
                "a student copy cannot mark an answers file: hand the file in, and your instructor marks it (attnlab quiz grade)"
            )
        handed_in = marking.read_answers(answers_file)
        student = student or handed_in.student
        result = marking.mark(opened.id, student, opened.items_for(student, "exam"), handed_in.answers)
        from attnlab import console

        _print_summary(result, console.out)
        return
    student = student or _default_student()
    items = opened.items_for(student, mode)
    path = runner.progress_path(opened.id, student, mode)
    saved = runner.load_progress(path, opened.id, student, mode)
    if mode == "exam" and saved.handed_in:
        # The state is on the student's machine, so this stops a slip, not a determined student;
        # an exam shows no score, so a second sitting learns nothing, and the instructor marks the file handed in.
        if restart:
            raise UserError(
                f"you handed in this exam ({saved.handed_in}); an exam is taken once, so --restart does not apply. Your instructor marks the file you handed in."
            )
        click.echo(
            f"You handed in this exam: your answers are in {saved.handed_in}. Your instructor marks it and tells you your score."
        )
        return
    progress = runner.Progress(opened.id, student, mode) if restart else saved
    if progress.finished:
        click.echo(f"You have finished {opened.title!r} in {mode} mode; --restart takes it again.")
    else:
        click.echo(f"{opened.title} · {count(len(items), 'question')} · {mode} mode · student {student}")
        if mode == "exam":
            click.echo(
                "Exam: your answers are recorded. At the end a review lists them all: go back to any question,"
                " and hand in when you are ready. Your instructor marks them and tells you your score."
            )
        if sys.stdin.isatty():
            # A program started in the background of a non-interactive shell inherits SIGINT ignored;
            # on a terminal, Ctrl-C must still save and leave.
            signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            runner.run(
                items,
                progress,
                runner.ask_terminal,
                lambda text: click.echo(text),
                lambda p: runner.save_progress(path, p),
            )
        except (EOFError, KeyboardInterrupt):
            runner.save_progress(path, progress)
            click.echo("\nProgress saved: run the same command to carry on.")
            sys.exit(130 if sys.exc_info()[0] is KeyboardInterrupt else 0)
        except QuizError as error:  # a key worked out only when checked (the YAML's): the quiz's fault
            runner.save_progress(path, progress)
            raise UserError(f"{error} (your progress is saved; tell your instructor)") from None
    if mode == "exam":
        target = answers_out or Path(f"{opened.id}-{student}.answers.yaml")
        marking.write_answers(target, opened.id, student, progress.answers, marking.variant_tag(items))
        progress.handed_in = str(target)
        runner.save_progress(path, progress)
        click.echo(
            f"Your answers are in {target}: hand this file in. Your instructor marks it and tells you your score."
        )
        return
    from attnlab import console

    _print_summary(marking.mark(opened.id, student, items, progress.answers), console.out, practice=True)


@quiz.command("list")
@click.option(
    "--student",
    default=None,
    help="Your student id, to say which exam copies hold your questions (default: $ATTNLAB_STUDENT, else your user name).",
)
@COURSE_OPTION
@quiz_errors
def list_command(student, course_dir) -> None:
    """List the quizzes here: what each is, and which have an exam copy with your questions."""
    from rich.table import Table

    from attnlab import console
    from attnlab.quiz.items import quiz_files

    folder = _quizzes_dir(course_dir)
    found = quiz_files(folder)
    if not found:
        raise UserError(f"no quizzes in {folder}")
    student = student or _default_student()
    table = Table(title=f"quizzes in {folder} · student {student}", title_justify="left")
    for column in ("quiz", "title", "questions", "practice", "exam"):
        table.add_column(column, justify="right" if column == "questions" else "left")
    exams = 0
    for quiz_id, files in found.items():
        title, questions, practice, exam = _listed(quiz_id, files, student)
        exams += exam == "yes" or exam.startswith("yes (")  # a copy with this student's questions
        table.add_row(quiz_id, title, questions, practice, exam)
    console.out.print(table)
    console.out.print(
        "Practise with attnlab quiz take QUIZ; sit an exam with attnlab quiz take QUIZ --mode exam."
        + (
            ""
            if exams
            else " No exam copy holds your questions here: your instructor gives the exam copies out for the exam."
        )
    )


def _listed(quiz_id: str, files: dict, student: str) -> tuple[str, str, str, str]:
    """(title, questions, practice, exam) of one quiz's row in ``quiz list``, from whichever files it has."""
    from attnlab.quiz import student_copy
    from attnlab.quiz.schema import load_quiz

    if files["yaml"] is not None:  # the instructor's quiz: either sitting, for any student id
        try:
            quiz_ = load_quiz(files["yaml"])
        except QuizError as error:
            return "", "", f"cannot be read ({error})", ""
        return quiz_.title, str(len(quiz_.questions)), "yes", "yes (the instructor's quiz: any student id)"
    title, questions, practice, exam = "", "", "no copy", "no copy"
    for sitting in ("practice", "exam"):
        if files[sitting] is None:
            continue
        try:
            copy = student_copy.load(files[sitting])
        except QuizError:
            text = "damaged: ask your instructor for a new copy"
        else:
            title, questions = copy["title"], str(len(copy["questions"]))
            if sitting == "practice":
                text = "yes"
            elif student_copy.roster_tag(copy["id"], student) in copy["students"]:
                text = "yes"
            else:
                text = f"yes, but not for {student!r} (not on its roster)"
        if sitting == "practice":
            practice = text
        else:
            exam = text
    return title, questions, practice, exam


@quiz.command()
@QUIZ
@click.option("--student", required=True, help="The student whose variant to show.")
@click.option(
    "--format",
    "output",
    type=click.Choice(["table", "answers"]),
    default="table",
    show_default=True,
    help="answers: an answers file that --answers accepts.",
)
@click.option(
    "--mode",
    type=click.Choice(["exam", "practice"]),
    default="exam",
    show_default=True,
    help="Which variant: the student's exam variant, or the practice variant they meet.",
)
@COURSE_OPTION
@quiz_errors
def key(quiz_name, student, output, mode, course_dir) -> None:
    """Print the answer key of one student's variant of QUIZ."""
    from attnlab.quiz.variant import keyed_quiz

    quiz_ = instructor_quiz(quiz_name, course_dir)
    keyed = keyed_quiz(quiz_, student, reference_factory(course_dir), mode)
    if output == "answers":
        import yaml

        answers = {k.asked.id: k.asked.kind.to_text(k.key) for k in keyed}
        click.echo(
            yaml.safe_dump(
                {"quiz": quiz_.id, "student": student, "answers": answers}, sort_keys=False, allow_unicode=True
            ),
            nl=False,
        )
        return
    from rich.table import Table

    from attnlab import console

    table = Table(title=f"{quiz_.id} · key for {student}", title_justify="left", show_lines=True)
    for column in ("question", "prompt", "answer", "points"):
        table.add_column(column)
    for k in keyed:
        table.add_row(k.asked.id, k.asked.text(), k.asked.kind.format(k.key), points(k.asked.points))
    console.out.print(table)


@quiz.command()
@QUIZ
@click.argument("answer_files", nargs=-1, required=True, type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--csv",
    "csv_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Where to write the scores (default: QUIZ-scores.csv here).",
)
@LMS_OPTIONS
@COURSE_OPTION
@quiz_errors
def grade(quiz_name, answer_files, csv_path, roster_path, lms_format, lms_column, course_dir) -> None:
    """Grade students' ANSWER_FILES for QUIZ: a table, and a CSV with a row per file.

    A wrong number, vector or matrix that is right to one decimal fewer than asked is counted
    as close (the table's close column; the CSV's close column names the questions).

    A file that cannot be read, two files claiming one student, and a file for another quiz are
    reported on their rows; the others are graded, the CSV is written, and the exit status is 1.

    With --roster or --format the CSV is a score sheet for an LMS's gradebook import instead: one
    row per student of the roster (a student two files claim gets no score there).
    """
    from rich.table import Table

    from attnlab import console
    from attnlab.quiz import marking

    opened = _open(quiz_name, course_dir)
    if opened.sitting is not None:
        raise UserError(f"{quiz_name} is a student copy: it holds no answers; give the instructor's quiz")
    from attnlab.export.sheets.commands import (
        load_roster,
        wants_sheet,
        write_sheet,
    )  # the instructor's side: not in the student bundle
    from attnlab.export.sheets.grades import Score

    roster = load_roster(roster_path)
    graded = marking.grade_files(opened.id, lambda student: opened.items_for(student, "exam"), list(answer_files))
    if roster is None:  # with one, the sheet names every id the class does not have
        console.err.print(
            "No --roster: each file is marked against the variant its student id draws, so a mistyped id is"
            " marked against questions nobody saw (a file written by `quiz take --mode exam` is checked,"
            " others are not); give --roster to check the ids."
        )
    target = csv_path or Path(f"{opened.id}-scores.csv")
    questions = [item.asked.id for item in opened.items_for("", "exam")]
    if wants_sheet(roster_path, lms_format, lms_column):
        claims = Counter(row.student for row in graded if row.student)
        scores = [
            Score(row.student, row.result.score, row.result.max_score)
            for row in graded
            if row.result and claims[row.student] == 1
        ]
        write_sheet(target, scores, roster, lms_format, lms_column or opened.title, console.err.print)
    else:
        with writing(target):
            marking.write_csv(target, graded, questions)
    table = Table(title=f"{opened.id} · {count(len(graded), 'answers file')}", title_justify="left")
    counted = ("score", "right", "wrong", "close", "unreadable", "skipped")
    for column in ("student", *counted, "problem"):
        table.add_column(column, justify="right" if column in counted else "left")
    for row in graded:
        result = row.result
        counts = (
            [
                str(sum(m.status == status for m in result.marks))
                for status in ("right", "wrong", "unreadable", "skipped")
            ]
            if result
            else [""] * 4
        )
        close = (
            str(sum(m.close for m in result.marks)) if result else ""
        )  # of the wrong ones: right to one decimal fewer
        total = score(result.score, result.max_score) if result else "-"
        table.add_row(row.student or str(row.path), total, *counts[:2], close, *counts[2:], "; ".join(row.problems))
    console.out.print(table)
    mistakes = marking.class_mistakes(graded)
    if mistakes:
        common = Table(title="common mistakes", title_justify="left")
        for column in ("question", "mistake", "students"):
            common.add_column(column, justify="right" if column == "students" else "left")
        for question, mistake, students in mistakes:
            common.add_row(question, mistake, str(students))
        console.out.print(common)
    unreadable = [(row, m) for row in graded if row.result for m in row.result.marks if m.status == "unreadable"]
    if unreadable:
        why = Table(title="unreadable answers (no points; the CSV's column says why too)", title_justify="left")
        for column in ("student", "question", "answer", "why"):
            why.add_column(column)
        for row, m in unreadable:
            why.add_row(row.student or str(row.path), m.id, m.answer or "", m.reason or "")
        console.out.print(why)
    troubled = [row for row in graded if row.problems]
    for row in troubled:
        console.err.print(f"{row.path}: {'; '.join(row.problems)}")
    console.err.print(f"Wrote {target}")
    if troubled:
        console.err.print(
            f"{len(troubled)} of {count(len(graded), 'answers file')} {'has' if len(troubled) == 1 else 'have'} problems (above); the others are graded."
        )
        sys.exit(1)


@quiz.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@COURSE_OPTION
@quiz_errors
def lint(paths, course_dir) -> None:
    """Check quiz files (default: the course's quizzes/): the schema, and every answer computed for sample students."""
    from attnlab.quiz.lint import check_quiz
    from attnlab.quiz.schema import load_quiz

    files = []
    for path in paths or (_quizzes_dir(course_dir),):
        if path.is_dir():
            files += sorted(path.glob("*.yaml")) + sorted(path.glob("*.yml"))
        elif path.exists():
            files.append(path)
        else:
            raise UserError(f"{path}: no such file or folder")
    if not files:
        raise UserError("no quiz files to check")
    problems = 0
    factory = reference_factory(course_dir)
    for path in files:
        try:
            quiz_ = load_quiz(path)
        except QuizError as error:
            problems += 1
            click.echo(str(error), err=True)
            continue
        found = check_quiz(quiz_, factory)
        for line in found:
            click.echo(f"{path}: {line}", err=True)
        problems += bool(found)
        if not found:
            click.echo(f"ok    {path} ({count(len(quiz_.questions), 'question')})")
    if problems:
        sys.exit(1)


@quiz.command("student-copy")
@QUIZ
@click.option(
    "--mode",
    type=click.Choice(["practice", "exam"]),
    default="practice",
    show_default=True,
    help="practice: a pool of practice variants, checked by hashes; exam: the questions only, nothing to check against.",
)
@click.option(
    "--roster",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Exam copy (required): the class list (student ids one a line, or a class-list CSV); each gets their questions as text.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    required=True,
    help="Where to write the student copy (.json; by convention ID.json for practice, ID.exam.json for the exam).",
)
@COURSE_OPTION
@quiz_errors
def student_copy_command(quiz_name, mode, roster, output, course_dir) -> None:
    """Write a student copy of QUIZ: an exam copy holds no key material; a practice copy checks by scrypt hashes."""
    from attnlab.atomic import write_json_atomically
    from attnlab.quiz import student_copy
    from attnlab.quiz.items import find_quiz
    from attnlab.quiz.schema import load_quiz

    students = _roster_ids(roster)
    path = find_quiz(quiz_name, _quizzes_dir(course_dir))
    if path.suffix == ".json":
        raise UserError(f"{path} is a student copy: give the instructor's quiz")
    copy = student_copy.build(load_quiz(path), mode, reference_factory(course_dir), students)
    write_json_atomically(output, copy)
    click.echo(f"Wrote the {mode} copy {output} ({count(len(copy['questions']), 'question')})", err=True)


def _roster_ids(path: Path | None) -> list[str]:
    """The ids of the class list at ``path`` (none: none), read as every command reads a roster."""
    if path is None:
        return []
    from attnlab.export.sheets.commands import load_roster  # the instructor's side: not in the student bundle

    return load_roster(path).ids
