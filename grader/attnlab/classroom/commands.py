"""``attnlab feedback`` and ``attnlab gradebook``: what a class's saved results become after grading
(each student's feedback; the shards of one class merged)."""

from __future__ import annotations

from pathlib import Path

import click

from attnlab.course import CourseError, find_course
from attnlab.errors import UserError, user_errors
from attnlab.options import COURSE_OPTION
from attnlab.wording import count

library_errors = user_errors(CourseError)


@click.group()
def gradebook() -> None:
    """A class's gradebook: merge the results of a class graded in shards (attnlab grade --shard K/N)."""


@gradebook.command()
@click.argument(
    "results", metavar="RESULTS...", nargs=-1, required=True, type=click.Path(path_type=Path, file_okay=False)
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, file_okay=False),
    required=True,
    help="The results folder to merge into (for example CLASS.results/): its gradebook.sqlite is rebuilt from the shards' results.",
)
def merge(results, output) -> None:
    """Merge the results folders of the N shards of one class into one results folder and gradebook.

    Each shard (attnlab grade CLASS --shard K/N) writes its own results folder. Merging refuses,
    in one line, folders of different classes or splits, shards graded by different graders
    (hidden tests, reference, limits, engine), a shard given twice and a shard missing. Grading
    the class again with --results OUTPUT grades nothing that is current and writes the CSV.
    """
    from attnlab import console
    from attnlab.classroom.gradebook import ResultsNotSaved
    from attnlab.classroom.shards import MergeRefused, merge as merge_shards
    from attnlab.wording import count

    try:
        merged = merge_shards(list(results), output)
    except (MergeRefused, ResultsNotSaved) as error:
        raise UserError(str(error)) from None
    except OSError as error:
        raise UserError(f"cannot merge into {output}: {error.strerror or error}") from None
    console.err.print(
        f"Merged {count(merged.shards, 'shard')}: {count(merged.students, 'student')} in {merged.folder / 'gradebook.sqlite'}"
    )


@click.command()
@click.argument("class_folder", metavar="CLASS", type=click.Path(path_type=Path, file_okay=False))
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    help="Where to write (default: CLASS.feedback/ next to the class folder).",
)
@click.option(
    "--student",
    "students",
    multiple=True,
    metavar="ID",
    help="Only this student's feedback (no class page); repeat for more.",
)
@click.option(
    "--results",
    "results_dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="The class's results folder (default: CLASS.results/ next to the class folder).",
)
@COURSE_OPTION
@library_errors
def feedback(class_folder: Path, out: Path | None, students, results_dir: Path | None, course_dir: Path | None) -> None:
    """Write each student's feedback from the results `attnlab grade CLASS` saved; nothing is graded again.

    \b
    OUT/ID/feedback.html     the student's report: points, what went wrong, heatmaps (one file, no scripts)
    OUT/ID/feedback.md       the same in Markdown, for a comment in the LMS
    OUT/_class-summary.html  the class: score chart, most missed tests, a link to each student's page
    Each student's folder holds their own feedback only, ready to hand back.
    """
    from attnlab import console
    from attnlab.classroom.feedback import FeedbackError, write_class_feedback

    try:
        written = write_class_feedback(
            find_course(course_dir), class_folder, out=out, results=results_dir, students=list(students)
        )
    except FeedbackError as error:
        raise UserError(str(error)) from None
    except OSError as error:  # a full disk, a folder not allowed
        raise UserError(f"cannot write {error.filename or out}: {error.strerror or error}") from None
    for note, names in (
        ("changed since graded, so this feedback is of the earlier submission", written.changed),
        ("no result saved yet", written.not_graded),
    ):
        if names:
            console.err.print(f"{note}: {', '.join(names)} (attnlab grade {class_folder} grades them)", style="yellow")
    summary = f"; the class: {written.summary}" if written.summary else ""
    console.err.print(f"Wrote the feedback of {count(len(written.students), 'student')} in {written.folder}{summary}")
