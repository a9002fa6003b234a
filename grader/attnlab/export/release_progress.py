"""A progress bar while a release is built: its quizzes' practice copies, then the roster's exam copies."""

from __future__ import annotations

import threading

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn


class ReleaseProgress:
    """Questions hashed for the practice copies and students written into the exam copies, each with an ETA."""

    def __init__(self, console: Console):
        self._lock = threading.Lock()  # practice copies are built in threads
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(bar_width=20),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
            transient=True,
            disable=not console.is_terminal,  # a log or a pipe gets the summary line, not a bar's frames
        )
        self.practice = self.progress.add_task("Practice copies (questions)", total=None)
        self.exams = self.progress.add_task("Exam copies (students × quizzes)", total=None, visible=False)

    def __enter__(self) -> ReleaseProgress:
        self.progress.start()
        return self

    def __exit__(self, *_) -> None:
        self.progress.stop()

    def expect(self, questions: int, exam_copies: int) -> None:
        self.progress.update(self.practice, total=questions)
        if exam_copies:
            self.progress.update(self.exams, total=exam_copies, visible=True)

    def practice_done(self, questions: int = 1) -> None:
        with self._lock:
            self.progress.update(self.practice, advance=questions)

    def exam_done(self) -> None:
        with self._lock:
            self.progress.update(self.exams, advance=1)
