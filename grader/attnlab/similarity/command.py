"""``attnlab similarity``: pairs of students whose code is alike, for an instructor to look at."""

from __future__ import annotations

from pathlib import Path

import click

from attnlab.course import CourseError, find_course
from attnlab.errors import UserError, user_errors, writing
from attnlab.intake.roster import RosterError
from attnlab.options import COURSE_OPTION

library_errors = user_errors(CourseError, RosterError)


@click.command()
@click.argument("class_folder", metavar="CLASS", type=click.Path(path_type=Path))
@click.option(
    "--html",
    "html_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Also write a page with each pair's files side by side, the matching passages marked (one file, reads offline).",
)
@click.option(
    "--top",
    type=click.IntRange(min=1),
    default=25,
    metavar="N",
    show_default=True,
    help="Pairs shown at most, most similar first.",
)
@click.option(
    "--threshold",
    type=click.IntRange(min=1, max=100),
    default=None,
    metavar="PERCENT",
    help="Show the pairs scoring this or more (default: 50, see docs/instructors.md).",
)
@click.option(
    "--common",
    "common_in",
    type=click.IntRange(min=2),
    default=None,
    metavar="N",
    help="A passage in more than N students' files is not counted as shared: code the exercise dictates (default: 10, as MOSS).",
)
@click.option(
    "--assignment",
    metavar="NAME",
    help="A class in nbgrader's layout: the assignment to compare (default: each student's newest).",
)
@click.option(
    "--pick",
    type=click.Choice(["newest"]),
    default=None,
    help="A submission with drafts (v1/, v2/): compare the newest (default: leave it out, saying why, as grading refuses it).",
)
@COURSE_OPTION
@library_errors
def similarity(class_folder: Path, html_path, top, threshold, common_in, assignment, pick, course_dir) -> None:
    """Pairs of students in CLASS whose code is alike beyond the stubs: a signal to look at, never a grade.

    CLASS is read as `attnlab grade CLASS` reads it: one folder or .zip per student (named by
    student id), nbgrader's submitted/<student>/<assignment>/, or a Gradescope export; notebooks
    count as their exercise file.

    Each exercise file is compared with the same file of every other student, by copydetect's
    fingerprints (winnowing, as MOSS): names, strings, comments and spacing are ignored, so a
    copy with renamed variables still matches. The stubs' own text (signatures, docstrings,
    hints) and passages found in many students' files are not counted. A file's score is the
    smaller of the two students' shares of their own code found in the other's; a pair's score
    is that of its most similar file.
    """
    from attnlab import console

    try:
        from attnlab.similarity.scoring import COMMON_IN, THRESHOLD, compare_class
    except ImportError as missing:
        if (missing.name or "").split(".")[0] not in ("copydetect", "matplotlib", "pygments", "jinja2"):
            raise
        raise UserError("attnlab similarity compares code with copydetect: pip install 'attnlab[similarity]'") from None
    from attnlab.similarity.html_report import render_html
    from attnlab.similarity.reading import read_class
    from attnlab.similarity.terminal import SimilarityProgress, render_pairs
    from attnlab.wording import count

    course = find_course(course_dir)
    threshold = THRESHOLD if threshold is None else threshold / 100
    common_in = COMMON_IN if common_in is None else common_in
    if class_folder.exists() and not class_folder.is_dir():
        raise UserError(f"{class_folder}: a file, not a class folder (a folder with one folder or .zip per student)")
    with SimilarityProgress(console.err) as progress:
        code = read_class(class_folder, course, assignment=assignment, pick=pick, on_read=progress.read)
        if len(code.students) < 2:
            raise UserError(
                f"{class_folder}: {count(len(code.students), 'student')} with exercise files to compare; similarity needs two or more"
            )
        stubs = {
            module: (course.exercises_dir / f"{module}.py").read_text(encoding="utf-8")
            for module in course.modules
            if (course.exercises_dir / f"{module}.py").is_file()
        }
        found = compare_class(code.students, stubs, common_in=common_in, jobs=_cores(), on_progress=progress.step)
    not_compared = code.not_compared + [f"{s.student}: {note}" for s in code.students for note in s.notes]
    render_pairs(console.out, found, threshold=threshold, top=top, not_compared=not_compared)
    if html_path is not None:
        from attnlab.atomic import write_text_atomically

        page = render_html(
            found,
            title=f"Similar code · {class_folder.resolve().name}",
            threshold=threshold,
            top=top,
            not_compared=not_compared,
        )
        with writing(html_path):
            write_text_atomically(html_path, page)
        console.err.print(f"Wrote {html_path}")


def _cores() -> int:
    """The cores this process may run on (a container's or a job's share, not the machine's)."""
    import os

    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1
