"""Render a ``GradeReport`` for the terminal: a table by function, then what failed and why."""

from __future__ import annotations

import math

from rich.columns import Columns
from rich.console import Console, Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from attnlab.outcomes import Outcome
from attnlab.results import ABOUT_HEADING, NOT_GRADED_HEADING, GradeReport, first_line
from attnlab.wording import count, points
from attnlab.report.sandbox_line import in_one_line

MARKS = {
    Outcome.PASSED: ("✓", "green"),
    Outcome.FAILED: ("✗", "red"),
    Outcome.NOT_IMPLEMENTED: ("·", "yellow"),
    Outcome.TIMED_OUT: ("⏱", "magenta"),
    Outcome.OUT_OF_MEMORY: ("M", "magenta"),
    Outcome.CRASHED: ("!", "magenta"),
    Outcome.ERROR: ("E", "red"),
}


def _points(value: float) -> str:
    return points(value)


def _function_table(report: GradeReport) -> Table:
    table = Table(title=f"attnlab grade · {report.submission}", title_justify="left", expand=False)
    table.add_column("file")
    table.add_column("function")
    table.add_column("tests", justify="right")
    table.add_column("points", justify="right")
    table.add_column("status")
    functions: dict[tuple[str, str], list] = {}
    for test in report.tests:
        functions.setdefault((test.module, test.function), []).append(test)
    for (module, function), tests in functions.items():
        passed = sum(t.outcome is Outcome.PASSED for t in tests)
        outcomes = sorted({t.outcome for t in tests if t.outcome is not Outcome.PASSED}, key=list(Outcome).index)
        status = (
            Text("all passed", style="green")
            if not outcomes
            else Text(", ".join(o.value for o in outcomes), style=MARKS[outcomes[0]][1])
        )
        table.add_row(
            f"{module}.py",
            function,
            f"{passed}/{len(tests)}",
            f"{_points(sum(t.score for t in tests))}/{_points(sum(t.max_score for t in tests))}",
            status,
        )
    percent = 100 * report.score / report.max_score if report.max_score else 0.0
    total_passed = sum(t.outcome is Outcome.PASSED for t in report.tests)
    table.add_section()
    table.add_row(
        "total",
        "",
        f"{total_passed}/{len(report.tests)}",
        f"{_points(report.score)}/{_points(report.max_score)}",
        Text(f"{percent:.0f}%", style="bold"),
    )
    return table


def heatmap(matrix: list[list[float]], leaked: list[list[bool]] | None, title: str) -> Group:
    """A small heatmap as a grid of shaded cells; leaked masked cells are red and marked with '!'."""
    table = Table(show_header=False, box=None, padding=(0, 0))
    for _ in matrix[0]:
        table.add_column(justify="right")
    for i, row in enumerate(matrix):
        cells = []
        for j, value in enumerate(row):
            if value is None or math.isnan(value):
                cells.append(Text("  nan ", style="black on grey70"))
                continue
            shade = int(255 - max(0.0, min(1.0, abs(value))) * 200)
            style = f"black on rgb({shade},{shade},255)" if abs(value) <= 0.6 else f"white on rgb({shade},{shade},255)"
            if leaked and leaked[i][j]:
                cells.append(Text(f"{value:5.2f}!", style="bold white on red"))
            else:
                cells.append(Text(f"{value:5.2f} ", style=style))
        table.add_row(*cells)
    return Group(Text(title, style="dim"), table)


def _pictures(test) -> list:
    picture = test.picture
    if not picture:
        return []
    maps = []
    if picture.get("expected") is not None:
        maps.append(heatmap(picture["expected"], None, "expected"))
    maps.append(
        heatmap(
            picture["got"],
            picture.get("leaked"),
            "got" + (" (! = masked cell with weight)" if picture.get("leaked") else ""),
        )
    )
    return [
        Text(f"     {picture.get('title', '')} (first slice, up to 8 × 8):", style="dim"),
        Padding(Columns(maps, padding=(0, 4)), (0, 0, 0, 5)),
    ]


def render(report: GradeReport, console: Console, *, explain: bool = False, verbose: bool = False) -> None:
    """Print the summary; failing tests with the first line of their feedback, or all of it with
    ``explain``; the sandbox in one line, or in full with ``verbose``."""
    console.print(_function_table(report))
    check_only = report.check_only_line()
    if check_only:  # full marks never hide a lesson the grader cannot score
        console.print(Text(check_only, style="yellow"))
    missing = report.files_not_imported()
    for module, tests in missing.items():  # once a file, not once a test: a missing file is one reason
        line = Text(" ✗ ", style="red")
        line.append(first_line(tests[0].feedback), style="bold")
        line.append(f"  0/{_points(sum(t.max_score for t in tests))} ({count(len(tests), 'test')})", style="red")
        console.print(line)
    unimported = {id(t) for tests in missing.values() for t in tests}
    failing = [t for t in report.tests if t.outcome is not Outcome.PASSED and id(t) not in unimported]
    not_implemented = [t for t in failing if t.outcome is Outcome.NOT_IMPLEMENTED]
    others = [t for t in failing if t.outcome is not Outcome.NOT_IMPLEMENTED]
    if not_implemented:
        names = sorted({t.function for t in not_implemented}, key=[t.function for t in report.tests].index)
        console.print(
            Text(
                f"Not implemented yet: {', '.join(names)} ({count(len(not_implemented), 'test')}, {count(sum(t.max_score for t in not_implemented), 'point')})",
                style="yellow",
            )
        )
    if others:
        console.print(Text("\nWhat went wrong:", style="bold"))
    for test in others:
        mark, style = MARKS[test.outcome]
        header = Text(f" {mark} ", style=style)
        header.append(test.name, style="bold")
        header.append(f"  {_points(test.score)}/{_points(test.max_score)}  {test.outcome.value}", style=style)
        lines = test.feedback.splitlines() or [""]
        body = lines if explain else lines[:1]
        parts = [header, *(Text("     " + line) for line in body), *(_pictures(test) if explain else [])]
        if explain and test.output:
            parts.append(Text("     your code printed:", style="dim"))
            parts.extend(Text("       " + line, style="dim") for line in test.output.splitlines()[:20])
        console.print(Group(*parts))
    if others and not explain:
        console.print(Text("\n(--explain shows the whole feedback of each failing test)", style="dim"))
    for heading, lines in ((ABOUT_HEADING, report.notes), (NOT_GRADED_HEADING, report.not_graded)):
        if lines:  # said, so nothing handed in is dropped without a word
            console.print(Text(f"\n{heading}:", style="yellow"))
            for line in lines:
                console.print(Text(f"  · {line}", style="yellow"))
    sandbox = report.sandbox if verbose else in_one_line(report.sandbox)
    console.print(Text(f"\nGraded in {report.duration:.1f} s; {sandbox}.", style="dim"))


def render_students(out, stored, explain: bool, failures: list[str], verbose: bool = False) -> None:
    """Each stored result of a class as ``render`` shows one (a line for one not gradable), then
    the submissions the grader failed on."""
    from rich.text import Text

    from attnlab.results import GradeReport

    for result in stored:
        if result.report is None:
            out.print(Text(f"{result.student}: not gradable: {result.error}", style="red"))
        else:
            render(GradeReport.from_dict(result.report), out, explain=explain, verbose=verbose)
    for failure in failures:
        out.print(Text(f"could not grade {failure} (not saved; run again to retry)", style="red"))
