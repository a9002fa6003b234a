"""What the instructor sees while a class is graded, and the class summary at the end."""

from __future__ import annotations

import collections

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Column, Table
from rich.text import Text

from attnlab.misconceptions import Misconception
from attnlab.report.class_figures import files_not_importable, most_failed, percentages, score_histogram
from attnlab.uploads import shown
from attnlab.wording import count

_OUTCOME_STYLES = {
    "passed": "green",
    "failed": "red",
    "not implemented": "yellow",
    "timed out": "magenta",
    "out of memory": "magenta",
    "crashed": "magenta",
    "error": "red",
}


class _CountsColumn(ProgressColumn):
    """The outcome counts: the column the table narrows first, cut to one line with an ellipsis."""

    def render(self, task) -> Text:
        counts = Text.from_markup(task.fields["counts"], overflow="ellipsis")
        counts.no_wrap = True
        return counts


class ClassProgress:
    """A progress bar with ETA and live counts of test outcomes over the class.

    done/total, elapsed and ETA come first and never wrap: on a narrow terminal the bar
    shrinks and the counts are cut, as they matter least while waiting."""

    def __init__(self, console: Console, total: int):
        self.counts: collections.Counter = collections.Counter()
        fixed = {"no_wrap": True}
        self.progress = Progress(
            TextColumn("[bold]Grading", table_column=Column(**fixed)),
            MofNCompleteColumn(table_column=Column(**fixed)),
            TimeElapsedColumn(table_column=Column(**fixed)),
            TextColumn("ETA", table_column=Column(**fixed)),
            TimeRemainingColumn(table_column=Column(**fixed)),
            BarColumn(bar_width=20),
            _CountsColumn(),
            console=console,
            transient=False,
        )
        self.task = self.progress.add_task("grading", total=total, counts="")

    def start(self) -> None:
        self.progress.start()

    def stop(self) -> None:
        self.progress.stop()

    def graded(self, data: dict) -> None:
        report = data.get("report") or {}
        for test in report.get("tests", []):
            self.counts[test["outcome"]] += 1
        if data.get("error"):
            self.counts["not gradable"] += 1
        counts = " ".join(f"[{_OUTCOME_STYLES.get(k, 'red')}]{k} {n}[/]" for k, n in sorted(self.counts.items(), key=lambda kv: -kv[1]))
        self.progress.update(self.task, advance=1, counts=counts)


NOT_GRADABLE_SHOWN = 20
"""Not gradable submissions listed with their reason at most; the rest are in the gradebook."""


def _render_not_gradable(console: Console, results: list[dict]) -> None:
    """Each submission that could not be graded, and why (a link, a zip bomb, no exercise file)."""
    refused = [d for d in results if d.get("error")]
    for data in refused[:NOT_GRADABLE_SHOWN]:
        # The reason names the student's files: no markup, no control characters.
        console.print(Text(f"  not gradable: {shown(str(data.get('student', '?')))}: {shown(str(data['error']))}", style="red"))
    if len(refused) > NOT_GRADABLE_SHOWN:
        console.print(Text(f"  and {len(refused) - NOT_GRADABLE_SHOWN} more (their reasons are in the gradebook)", style="red"))


def render_class_summary(console: Console, results: list[dict], catalogue: list[Misconception], *, graded_now: int, reused: int, failures: list[str], wall: float) -> None:
    """Score distribution (a chart), the files students could not hand in importable, and the
    tests most students answered wrong with their most common reason (a table)."""
    scores = percentages(results)
    console.print(Text(f"\n{count(len(results), 'submission')}: {graded_now} graded now, {reused} unchanged since they were graded ({wall:.1f} s)", style="bold"))
    if scores:
        mean = sum(scores) / len(scores)
        full = sum(p >= 100 for p in scores)
        console.print(f"Mean score {mean:.1f}%, full marks {full} of {len(scores)}; not gradable {sum(bool(d.get('error')) for d in results)}.")
        _render_not_gradable(console, results)
        console.print(Text("\nScore distribution", style="bold"))
        for label, students, bar in score_histogram(scores):
            console.print(Text(f"  {label} ") + Text(bar, style="cyan") + Text(f" {students}" if students else ""))
    files = files_not_importable(results)
    if files:
        console.print(Text("\nFile missing / not importable: ", style="bold") + Text(", ".join(f"{name} ({count(students, 'student')})" for name, students in files)))
    rows = most_failed(results, catalogue)
    if rows:
        table = Table(title="Tests most students answer wrong (the file imported)", title_justify="left", show_lines=False)
        table.add_column("test")
        table.add_column("students", justify="right")
        table.add_column("most common reason")
        for row in rows:
            table.add_row(row.name, str(row.students), f"{row.reason} ({row.reason_students})" if row.reason_students < row.students else row.reason)
        console.print(table)
    for failure in failures:
        console.print(Text(f"could not grade {failure} (not saved; run again to retry)", style="red"))
