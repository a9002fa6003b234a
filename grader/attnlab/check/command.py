"""``attnlab check``: the public tests on a student's files, one line per function."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from attnlab.course import CourseError, find_course
from attnlab.errors import user_errors
from attnlab.options import COURSE_OPTION
from attnlab.wording import count

library_errors = user_errors(CourseError)


@click.command()
@click.argument("folder", type=click.Path(path_type=Path), required=False)
@click.option(
    "--only", multiple=True, metavar="FILE", help="Check only this exercise file (e.g. softmax); repeat for more."
)
@click.option(
    "--track",
    "tracks",
    multiple=True,
    metavar="NAME",
    help="Check only this track's files: numpy, or torch (the PyTorch module).",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.1),
    default=5.0,
    show_default=True,
    help="Seconds one public test may take; past it, it fails (a loop that never ends?) and the function's other tests are not run.",
)
@COURSE_OPTION
@library_errors
def check(folder: Path | None, only, tracks, timeout: float, course_dir: Path | None) -> None:
    """Run the public tests on FOLDER (default: the course's exercises/) and summarise per function.

    The PyTorch track's tests import torch, which takes a second or two; --track numpy leaves
    them out (without torch, they are left out and said to be). A file that cannot be imported
    is named with its line and what to do, and the other files are still checked. The exit
    status is 0 when every public test passes, 1 otherwise.
    """
    from rich.text import Text

    from attnlab import console
    from attnlab.check.run import run_check

    course = find_course(course_dir)
    folder = folder or course.exercises_dir
    result = run_check(course, folder, course.select(only, tracks), test_seconds=timeout)
    checks = result.functions
    marks = {
        "passed": ("✓", "green"),
        "failed": ("✗", "red"),
        "not implemented": ("·", "yellow"),
        "waiting": ("…", "yellow"),
    }
    console.out.print(Text(f"attnlab check · {folder}", style="bold"))
    for problem in result.problems:
        console.out.print(Text(f" ✗ {problem}", style="red"))
    for note in result.left_out:
        console.out.print(Text(f" · {note}", style="yellow"))
    width = max((len(c.function) for c in checks), default=0)
    for item in checks:
        mark, style = marks[item.status]
        line = Text(f" {mark} ", style=style)
        line.append(item.function.ljust(width + 2))
        line.append(
            f"{item.passed}/{item.total} passed" if item.status == "passed" else item.message,
            style=None if item.status == "passed" else style,
        )
        console.out.print(line)
        for detail in item.details:  # what pytest would show: the assertion's message, the call, the output
            console.out.print(Text("     " + detail, style="dim"), overflow="fold")
    done = sum(c.status == "passed" for c in checks)
    verb = "passes its" if len(checks) == 1 else "pass their"
    console.out.print(Text(f"\n{done} of {count(len(checks), 'function')} {verb} public tests.", style="bold"))
    if done < len(checks) or result.problems:
        sys.exit(1)
