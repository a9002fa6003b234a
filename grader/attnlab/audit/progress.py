"""A progress bar while the mutants are graded, with live counts of what the tests did to them."""

from __future__ import annotations

import collections

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from attnlab.audit.verdicts import Verdict

_STYLES = {"killed": "green", "timed out": "magenta", "survived": "red", "equivalent": "dim"}


class AuditProgress:
    """Mutants graded so far, with an ETA and how many were killed, timed out or survived."""

    def __init__(self, console: Console):
        self.counts: collections.Counter = collections.Counter()
        self.progress = Progress(
            TextColumn("[bold]Mutants"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[counts]}"),
            console=console,
            transient=False,
        )
        self.task = self.progress.add_task("mutants", total=None, counts="")

    def expect(self, total: int) -> None:
        self.progress.update(self.task, total=total)

    def start(self) -> None:
        self.progress.start()

    def stop(self) -> None:
        self.progress.stop()

    def judged(self, verdict: Verdict) -> None:
        self.counts[verdict.status] += 1
        counts = " ".join(f"[{_STYLES[k]}]{k} {n}[/]" for k, n in sorted(self.counts.items(), key=lambda kv: -kv[1]))
        self.progress.update(self.task, advance=1, counts=counts)
