"""What the instructor sees while a class is graded, and the class summary at the end."""

from __future__ import annotations

import collections

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from attnlab.misconceptions import Misconception
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
_BAR = "█"


class ClassProgress:
    """A progress bar with ETA and live counts of test outcomes over the class."""

    def __init__(self, console: Console, total: int):
        self.counts: collections.Counter = collections.Counter()
        self.progress = Progress(
            TextColumn("[bold]Grading"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[counts]}"),
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


def score_histogram(percentages: list[float], bins: int = 10, width: int = 40) -> list[tuple[str, int, str]]:
    """(label, count, bar) per tenth of the maximum score; full marks get their own row."""
    counts = [0] * (bins + 1)
    for value in percentages:
        counts[bins if value >= 100 else min(int(value // (100 / bins)), bins - 1)] += 1
    top = max(counts) or 1
    labels = [f"{int(i * 100 / bins):3d}–{int((i + 1) * 100 / bins) - 1:3d}%" for i in range(bins)] + ["   100%"]
    return [(label, count, _BAR * round(width * count / top)) for label, count in zip(labels, counts)]


def most_failed(results: list[dict], catalogue: list[Misconception], limit: int = 10) -> list[tuple[str, int, str]]:
    """The tests most students lost points on: (test, students, most common named mistake)."""
    failing: collections.Counter = collections.Counter()
    mistakes: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    names = {m.id: m.name for m in catalogue}
    for data in results:
        for test in (data.get("report") or {}).get("tests", []):
            if test["score"] < test["max_score"]:
                failing[test["name"]] += 1
                mistakes[test["name"]][test["misconception"] or test["outcome"]] += 1
    rows = []
    for name, students in failing.most_common(limit):
        top, _ = mistakes[name].most_common(1)[0]
        rows.append((name, students, names.get(top, top)))
    return rows


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
    """Score distribution (a chart), the most failed tests and their misconceptions (a table)."""
    reports = [d.get("report") or {} for d in results]
    maximum = max((r.get("max_score") or 0 for r in reports), default=0) or 1
    percentages = [100 * (r.get("score") or 0) / maximum for r in reports]
    console.print(Text(f"\n{count(len(results), 'submission')}: {graded_now} graded now, {reused} unchanged since they were graded ({wall:.1f} s)", style="bold"))
    if percentages:
        mean = sum(percentages) / len(percentages)
        full = sum(p >= 100 for p in percentages)
        console.print(f"Mean score {mean:.1f}%, full marks {full} of {len(percentages)}; not gradable {sum(bool(d.get('error')) for d in results)}.")
        _render_not_gradable(console, results)
        console.print(Text("\nScore distribution", style="bold"))
        for label, students, bar in score_histogram(percentages):
            console.print(Text(f"  {label} ") + Text(bar, style="cyan") + Text(f" {students}" if students else ""))
    rows = most_failed(results, catalogue)
    if rows:
        table = Table(title="Tests most students lose points on", title_justify="left", show_lines=False)
        table.add_column("test")
        table.add_column("students", justify="right")
        table.add_column("most common reason")
        for name, students, reason in rows:
            table.add_row(name, str(students), reason)
        console.print(table)
    for failure in failures:
        console.print(Text(f"could not grade {failure} (not saved; run again to retry)", style="red"))
