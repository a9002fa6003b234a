"""What the grading processes of a class share: ``ClassSession``.

Each grading process grades its submissions with ``grading.suite.grade``, the one procedure,
given what a class holds once: the reference, its recorded run, the limits; and, per process
(``start``), a fork server and the reference's answers to stand-in calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from attnlab.course import Course
from attnlab.grading.replay.script import Script
from attnlab.grading.suite import grade
from attnlab.reference import Reference
from attnlab.results import GradeReport
from attnlab.sandbox.environment import SandboxEnvironment
from attnlab.sandbox.host import ForkServer, Limits
from attnlab.sandbox.standins import AnswerCache


@dataclass
class ClassSession:
    """The course, the reference, its recorded run and the limits of a class; per grading process,
    a fork server and the reference's answers to stand-in calls."""

    course: Course
    reference: Reference
    script: Script
    limits: Limits
    only: list[str] | None = None
    fork_server: ForkServer | None = None
    answer_cache: AnswerCache = field(default_factory=AnswerCache)

    def start(self) -> None:
        """In a grading process: its own fork server (a sandbox per grading process)."""
        self.fork_server = ForkServer(SandboxEnvironment.for_course(self.course))
        self.answer_cache = AnswerCache()

    def grade(self, submission: Path, only: list[str] | None = None) -> GradeReport:
        """Grade one staged submission on ``only`` these files (default: the class's), as it is graded alone."""
        return grade(
            self.course,
            submission,
            only=only or self.only,
            limits=self.limits,
            fork_server=self.fork_server,
            reference=self.reference,
            answer_cache=self.answer_cache,
            script=self.script,
        )

    def close(self) -> None:
        if self.fork_server is not None:
            self.fork_server.close()
            self.fork_server = None
