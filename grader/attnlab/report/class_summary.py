"""What the instructor sees while a class is graded, and the class summary at the end."""

from __future__ import annotations

import collections

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Column, Table
from rich.text import Text

from attnlab.misconceptions import Misconception
from attnlab.report.class_figures import (
    files_not_importable,
    most_failed,
    names_of,
    not_graded_lines,
    percentages,
    score_histogram,
)
from attnlab.intake.uploads import shown
from attnlab.wording import count, points

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
        counts = " ".join(
            f"[{_OUTCOME_STYLES.get(k, 'red')}]{k} {n}[/]"
            for k, n in sorted(self.counts.items(), key=lambda kv: -kv[1])
        )
        self.progress.update(self.task, advance=1, counts=counts)


NOT_GRADED_SHOWN = 40
"""Lines of what was found and not graded shown at most; all of them are written to a file."""
CLASS_LINES_SHOWN = 10
"""Lines of the class folder's own (its stray files) shown at most; past it, one line says how many."""


def render_class_summary(
    console: Console,
    results: list[dict],
    catalogue: list[Misconception],
    *,
    graded_now: int,
    reused: int,
    failures: list[str],
    wall: float,
    not_graded: list[str] = (),
    changed: list[str] = (),
    all_not_graded: str | None = None,
) -> None:
    """Score distribution (a chart), the files students could not hand in importable (and whose),
    the tests most students answered wrong with their most common reason (a table), whose scores
    a regrade changed, and last, what was found and not graded, and why (``not_graded``: the class
    folder's own lines; the rest is read from the results), one line each."""
    scores = percentages(results)
    console.print(
        Text(
            f"\n{count(len(results), 'submission')}: {graded_now} graded now, {reused} unchanged since they were graded ({wall:.1f} s)",
            style="bold",
        )
    )
    if scores:
        mean = sum(scores) / len(scores)
        full = sum(p >= 100 for p in scores)
        console.print(
            f"Mean score {mean:.1f}%, full marks {full} of {len(scores)}; not gradable {sum(bool(d.get('error')) for d in results)}."
        )
        console.print(Text("\nScore distribution", style="bold"))
        for label, students, bar in score_histogram(scores):
            console.print(Text(f"  {label} ") + Text(bar, style="cyan") + Text(f" {students}" if students else ""))
    files = files_not_importable(results)
    if files:
        console.print(Text("\nFile missing / not importable:", style="bold"))
        for name, students in files:  # whose: the ids are the students', shown as text
            console.print(Text(f"  {name}: {count(len(students), 'student')} ({shown(names_of(students))})"))
    rows = most_failed(results, catalogue)
    if rows:
        table = Table(
            title="Tests most students answer wrong (the file imported)", title_justify="left", show_lines=False
        )
        table.add_column("test")
        table.add_column("students", justify="right")
        table.add_column("most common reason")
        for row in rows:
            table.add_row(
                row.name,
                str(row.students),
                f"{row.reason} ({row.reason_students})" if row.reason_students < row.students else row.reason,
            )
        console.print(table)
    if changed:
        console.print(Text(f"\nScores changed since they were last graded ({len(changed)}):", style="bold"))
        for line in changed:
            console.print(Text(f"  {shown(line)}"))
    for failure in failures:
        console.print(Text(f"could not grade {failure} (not saved; run again to retry)", style="red"))
    # Each student's lines first, and the class folder's own (its files, one a line) folded into
    # one when they are many: a download's stray files never push a student's problem off the screen.
    found = not_graded_lines(results, [])
    total = len(found) + len(not_graded)
    if len(not_graded) > CLASS_LINES_SHOWN:
        where = f"; every line is in {all_not_graded}" if all_not_graded else ""
        found.append(
            f"{len(not_graded)} files and folders of the class folder are no student's submission (the first: {not_graded[0]}){where}"
        )
    else:
        found += not_graded
    if found:
        console.print(Text(f"\nFound and not graded ({total}):", style="bold"))
        for line in found[:NOT_GRADED_SHOWN]:  # the reasons name the students' files: no markup, no control characters
            console.print(Text(f"  {shown(line)}", style="yellow"))
        if len(found) > NOT_GRADED_SHOWN:
            console.print(
                Text(
                    f"  and {len(found) - NOT_GRADED_SHOWN} more{f': every line is in {all_not_graded}' if all_not_graded else ''}",
                    style="yellow",
                )
            )


def score_changes(before: dict[str, float | None], results: list[dict]) -> list[str]:
    """One line per student whose score a regrade changed: ``ada: 170 → 182``."""
    lines = []
    for data in results:
        student = str(data.get("student"))
        if student not in before:
            continue
        report = data.get("report")
        now = None if report is None else report.get("score")
        if now != before[student]:
            shown_score = lambda score: "not gradable" if score is None else points(score)  # noqa: E731
            lines.append(f"{student}: {shown_score(before[student])} → {shown_score(now)}")
    return lines


def why_grading(why: dict[str, str]) -> str:
    """Why the submissions to grade are graded, counted by reason: one line."""
    reasons = collections.Counter(why.values())
    return "; ".join(
        f"{n} {'because ' if not reason.startswith(('not ', 'named')) else ''}{reason}"
        for reason, n in reasons.most_common()
    )
