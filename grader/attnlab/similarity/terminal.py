"""The pairs worth a look, as a table in the terminal (``attnlab.console``: plain text in tests)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from attnlab.similarity.scoring import Pair, Similarity
from attnlab.wording import count

NOT_COMPARED_SHOWN = 20
"""Lines of what was found and not compared shown at most."""
SIGNAL = "A signal for a person to look at, never a grade: similar code can be honest (the same idea, a study group's discussion), and a copy can be missed."


def percent(share: float) -> str:
    return f"{round(100 * share)}%"


def files_cell(pair: Pair, shown: int = 3) -> str:
    """The pair's most similar files with their scores: ``efficient.py 93%, heads.py 71%``."""
    cells = [f"{f.module}.py {percent(f.score)}" for f in pair.files[:shown]]
    more = len(pair.files) - shown
    return ", ".join(cells) + (f", +{more} more" if more > 0 else "")


def render_pairs(
    console: Console,
    similarity: Similarity,
    *,
    threshold: float,
    top: int,
    not_compared: list[str] = (),
) -> None:
    """The ``top`` pairs at or above ``threshold``, most similar first, then what was not compared."""
    flagged = similarity.above(threshold)
    students = count(len(similarity.students), "student")
    if not flagged:
        closest = f"; the closest pair scores {percent(similarity.pairs[0].score)}" if similarity.pairs else ""
        console.print(Text(f"No pair of the {students} compared scores {percent(threshold)} or more{closest}."))
    else:
        table = Table(
            title=f"Similar code: {count(len(flagged), 'pair')} of {students} at {percent(threshold)} or more",
            title_justify="left",
        )
        table.add_column("#", justify="right")
        table.add_column("student")
        table.add_column("student")
        table.add_column("score", justify="right")
        table.add_column("files alike (score: the smaller side's share)")
        table.add_column("own code shared", justify="right")
        for rank, pair in enumerate(flagged[:top], start=1):
            table.add_row(
                str(rank),
                pair.a,
                pair.b,
                percent(pair.score),
                files_cell(pair),
                f"{percent(pair.share_a)} / {percent(pair.share_b)}",
            )
        console.print(table)
        if len(flagged) > top:
            console.print(Text(f"and {count(len(flagged) - top, 'more pair')} (--top shows more)"))
    console.print(Text(SIGNAL, style="dim"))
    if not_compared:
        console.print(Text(f"\nFound and not compared ({len(not_compared)}):", style="bold"))
        for line in not_compared[:NOT_COMPARED_SHOWN]:
            console.print(Text(f"  {line}", style="yellow"))
        if len(not_compared) > NOT_COMPARED_SHOWN:
            console.print(Text(f"  and {len(not_compared) - NOT_COMPARED_SHOWN} more", style="yellow"))


class SimilarityProgress:
    """A progress bar for each step of a class's comparison (reading, fingerprints, comparing).

    Drawn when told, with no thread of its own: the fingerprints are made in processes forked
    from this one, and a fork must not copy a thread that holds the console's lock."""

    STEPS = {"reading": "Reading the class", "fingerprints": "Fingerprinting", "comparing": "Comparing"}

    def __init__(self, console: Console):
        self.shown = console.is_terminal  # a pipe or a log gets no bars, only the results
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(bar_width=30),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
            auto_refresh=False,
        )
        self.tasks: dict[str, int] = {}

    def __enter__(self) -> "SimilarityProgress":
        if self.shown:
            self.progress.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.shown:
            self.progress.stop()

    def read(self, done: int, total: int) -> None:
        self.step("reading", done, total)

    def step(self, step: str, done: int, total: int) -> None:
        if not self.shown:
            return
        if step not in self.tasks:
            self.tasks[step] = self.progress.add_task(self.STEPS[step], total=total)
        self.progress.update(self.tasks[step], completed=done, total=total, refresh=True)
