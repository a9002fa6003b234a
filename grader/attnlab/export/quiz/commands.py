"""``attnlab quiz export``: a quiz with its answers as a question bank (``moodle``, ``qti``);
``cli`` adds it to the ``attnlab quiz`` group."""

from __future__ import annotations

from pathlib import Path

import click

from attnlab.errors import UserError, writing
from attnlab.options import COURSE_OPTION
from attnlab.quiz.commands import EXPORT_VARIANTS, QUIZ, instructor_quiz, reference_factory, quiz_errors
from attnlab.wording import count


@click.command("export")
@QUIZ
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["moodle", "moodle-xml", "qti"]),
    default="moodle",
    show_default=True,
    help="moodle (or moodle-xml): Moodle's question bank; qti: a QTI 1.2 zip for Canvas, Blackboard or D2L.",
)
@click.option(
    "--variants",
    type=click.IntRange(min=1, max=500),
    default=EXPORT_VARIANTS,
    show_default=True,
    help="N variants per parameterized question, and every exam item of a pool (a Moodle category for"
    " 'random question', a QTI question group that picks 1); 1: the same variant for every student.",
)
@click.option(
    "--show-answers",
    is_flag=True,
    help="QTI: let Canvas show students the right answers after they submit (for practice; off, as an exam needs).",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    required=True,
    help="Where to write the export (.xml for Moodle, .zip for QTI).",
)
@COURSE_OPTION
@quiz_errors
def export_command(quiz_name, output_format, variants, show_answers, output, course_dir) -> None:
    """Export QUIZ with its answers for an LMS: Moodle XML or QTI 1.2, a pool of variants per question."""
    from attnlab.atomic import write_bytes_atomically

    quiz_ = instructor_quiz(quiz_name, course_dir)
    notes = []
    if show_answers and output_format != "qti":
        raise UserError("--show-answers is a QTI setting (Canvas's show_correct_answers); Moodle has review options")
    if output_format == "qti":
        from attnlab.export.quiz.qti import qti_zip

        data = qti_zip(quiz_, reference_factory(course_dir), variants, show_answers)
    else:
        from attnlab.export.quiz.moodle import moodle_export

        exported = moodle_export(quiz_, reference_factory(course_dir), variants)
        data = exported.xml.encode("utf-8")
        for question, (points, marks) in exported.marks_to_set.items():
            shown = ", ".join(f"{m:g}" for m in sorted(set(marks)))
            notes.append(
                f"{question}: worth {shown} in Moodle's bank (one mark per entry), {points:g} in attnlab: set its maximum mark to {points:g} in the quiz"
            )
    with writing(output):
        write_bytes_atomically(output, data)
    held = f"{count(variants, 'variant')} each where parameterized, every exam item of a pool"
    click.echo(f"Wrote {output} ({count(len(quiz_.questions), 'question')}, {held})", err=True)
    if variants == 1:
        click.echo("--variants 1: every student gets the same variant of each question: answers pass on", err=True)
    for note in notes:
        click.echo(note, err=True)
